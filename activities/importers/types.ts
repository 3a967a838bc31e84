import type { z } from 'zod';
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

/** The field, code and message of a record that failed its schema: the first issue, its path dotted. */
export function invalidField(error: z.ZodError): Pick<ImportRejection, 'field' | 'code' | 'message'> {
  const issue = error.issues[0];
  return { field: issue.path.join('.') || '(record)', code: 'INVALID_FIELD', message: issue.message };
}
