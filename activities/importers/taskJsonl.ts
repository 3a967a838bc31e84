import { jsonlFiles } from '../paths.ts';
import { Task } from '../../schemas/task.ts';
import { readJsonl } from './jsonlReader.ts';
import { invalidField, type ImportResult } from './types.ts';

/** Task JSONL in the project's own schema (e.g. data/tasks/curated/*.jsonl): a file, or a directory of them. */
export function importTaskFiles(path: string): ImportResult {
  const files = jsonlFiles(path);
  const out: ImportResult = { tasks: [], rejections: [] };
  for (const file of files) {
    const { records, rejections } = readJsonl(file);
    out.rejections.push(...rejections);
    for (const { line, value } of records) {
      const parsed = Task.safeParse(value);
      if (parsed.success) out.tasks.push({ task: parsed.data, file, line });
      else {
        out.rejections.push({ file, line, task_id: typeof value.task_id === 'string' ? value.task_id : undefined, ...invalidField(parsed.error) });
      }
    }
  }
  return out;
}
