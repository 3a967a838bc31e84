import type { Task } from '../../schemas/task.ts';

/** A task read from a file, with where it came from (for error messages and the gate's report). */
export interface ImportedTask {
  task: Task;
  file: string;
  line: number;
}

/** A record that could not be imported: names the file, the record (line) and the field. */
export interface ImportRejection {
  file: string;
  line: number;
  task_id?: string;
  field: string;
  code: string;
  message: string;
}

export interface ImportResult {
  tasks: ImportedTask[];
  rejections: ImportRejection[];
}

export function formatRejection(r: ImportRejection): string {
  return `${r.file}:${r.line}${r.task_id ? ` (${r.task_id})` : ''} ${r.field}: ${r.code}: ${r.message}`;
}
