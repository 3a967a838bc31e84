import { readFileSync } from 'node:fs';
import type { ImportRejection } from './types.ts';

export interface JsonlRecord {
  line: number;
  value: Record<string, unknown>;
}

/**
 * Reads a JSON-lines file: one object per non-blank line. A line that is not a JSON object becomes a rejection
 * naming file and line; the others are still returned.
 */
export function readJsonl(file: string): { records: JsonlRecord[]; rejections: ImportRejection[] } {
  const records: JsonlRecord[] = [];
  const rejections: ImportRejection[] = [];
  readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    if (!text.trim()) return;
    try {
      const value = JSON.parse(text) as unknown;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
      records.push({ line: i + 1, value: value as Record<string, unknown> });
    } catch (err) {
      rejections.push({ file, line: i + 1, field: '(record)', code: 'INVALID_JSON', message: (err as Error).message });
    }
  });
  return { records, rejections };
}

/** `\r\n` (and a lone `\r`) to `\n`: MBPP ships Windows line endings, and a mutant's byte offsets assume `\n`. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
