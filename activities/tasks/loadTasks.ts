import { readFileSync } from 'node:fs';
import { jsonlFiles } from '../paths.ts';
import { Task } from '../../schemas/task.ts';
import { parseJsonl } from '../../core/jsonl.ts';

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
 * Reads tasks from JSONL. A malformed line or an invalid record is reported with file, line and field and
 * skipped; the rest of the batch is kept.
 */
export function loadTasks(path: string): { items: LoadedTask[]; errors: LoadError[] } {
  const items: LoadedTask[] = [];
  const errors: LoadError[] = [];
  for (const file of jsonlFiles(path)) {
    parseJsonl(readFileSync(file, 'utf8'), Task, {
      record: (line, task) => items.push({ task, file, line }),
      badJson: (line, message) => errors.push({ file, line, message: `malformed JSON: ${message}` }),
      invalid: (line, issues) => {
        for (const is of issues) errors.push({ file, line, field: is.field || '(record)', message: is.message });
      },
    });
  }
  return { items, errors };
}
