import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { Task } from '../../schemas/task.ts';

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

/** `a.b[2].c` from a zod issue path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

export function zodProblems(err: z.ZodError): { field: string; message: string }[] {
  return err.issues.map((i) => ({ field: fieldPath(i.path) || '(record)', message: i.message }));
}

/** The JSONL files a path names: the file itself, or every *.jsonl in a directory (sorted). */
export function jsonlFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(path, f));
}

/**
 * Reads tasks from JSONL. A malformed line or an invalid record is reported with file, line and field and
 * skipped; the rest of the batch is kept.
 */
export function loadTasks(path: string): { items: LoadedTask[]; errors: LoadError[] } {
  const items: LoadedTask[] = [];
  const errors: LoadError[] = [];
  for (const file of jsonlFiles(path)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((text, idx) => {
      const line = idx + 1;
      if (!text.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (err) {
        errors.push({ file, line, message: `malformed JSON: ${(err as Error).message}` });
        return;
      }
      const parsed = Task.safeParse(raw);
      if (!parsed.success) {
        for (const p of zodProblems(parsed.error)) errors.push({ file, line, field: p.field, message: p.message });
        return;
      }
      items.push({ task: parsed.data, file, line });
    });
  }
  return { items, errors };
}
