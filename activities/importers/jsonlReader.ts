import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ImportRejection } from './types.ts';
import { parseJsonl, type SafeParser } from '../../core/jsonl.ts';

export interface JsonlRecord {
  line: number;
  value: Record<string, unknown>;
}

/**
 * Reads a JSON-lines file (plain or gzipped): one object per non-blank line. A line that is not a JSON object becomes a rejection
 * naming file and line; the others are still returned.
 */
const AnyObject: SafeParser<Record<string, unknown>> = {
  safeParse: (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? { success: true, data: v as Record<string, unknown> }
      : { success: false, error: { issues: [{ path: [], message: 'not a JSON object' }] } },
};

/** A file's text; gzip is recognised by its magic bytes (1f 8b), whatever the file is called. */
export function readText(file: string): string {
  const buf = readFileSync(file);
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      return gunzipSync(buf).toString('utf8');
    } catch (e) {
      throw new Error(`${file}: not a readable gzip file (${(e as Error).message})`);
    }
  }
  return buf.toString('utf8');
}

export function readJsonl(file: string): { records: JsonlRecord[]; rejections: ImportRejection[] } {
  const records: JsonlRecord[] = [];
  const rejections: ImportRejection[] = [];
  const reject = (line: number, message: string) => rejections.push({ file, line, field: '(record)', code: 'INVALID_JSON', message });
  parseJsonl(readText(file), AnyObject, {
    record: (line, value) => records.push({ line, value }),
    badJson: reject,
    invalid: (line, issues) => reject(line, issues[0].message),
  });
  return { records, rejections };
}

/** `\r\n` (and a lone `\r`) to `\n`: MBPP ships Windows line endings, and a mutant's byte offsets assume `\n`. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
