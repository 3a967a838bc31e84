import { jsonlFiles } from '../paths.ts';
import { Task } from '../../schemas/task.ts';
import { fieldPath } from '../../core/jsonl.ts';
import { readJsonl } from '../importers/jsonlReader.ts';

export interface LoadedTask {
  task: Task;
  file: string;
  line: number;
}
export interface LoadError {
  file: string;
  line: number;
  field?: string;
  message: string;
}

/**
 * Reads tasks from JSONL (plain or gzipped; a file or a directory of them) through the one task-file reader
 * (activities/importers/jsonlReader.ts). A malformed, oversized or non-UTF-8 line or an invalid record is
 * reported with file, line and field and skipped; the rest of the batch is kept.
 */
export function loadTasks(path: string): { items: LoadedTask[]; errors: LoadError[] } {
  const items: LoadedTask[] = [];
  const errors: LoadError[] = [];
  for (const file of jsonlFiles(path)) {
    const { records, rejections } = readJsonl(file);
    for (const r of rejections) errors.push({ file, line: r.line, message: r.code === 'INVALID_JSON' ? `malformed JSON: ${r.message}` : `${r.code}: ${r.message}` });
    for (const { line, value } of records) {
      const parsed = Task.safeParse(value);
      if (parsed.success) items.push({ task: parsed.data, file, line });
      else for (const is of parsed.error.issues) errors.push({ file, line, field: fieldPath(is.path) || '(record)', message: is.message });
    }
  }
  errors.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { items, errors };
}
