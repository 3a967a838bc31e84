import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ImportRejection } from './types.ts';
import { parseJsonl, type SafeParser } from '../../core/jsonl.ts';

export interface JsonlRecord {
  line: number;
  value: Record<string, unknown>;
}

/** Anything that is a JSON object (not an array, not a scalar). */
const AnyObject: SafeParser<Record<string, unknown>> = {
  safeParse: (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? { success: true, data: v as Record<string, unknown> }
      : { success: false, error: { issues: [{ path: [], message: 'not a JSON object' }] } },
};

/**
 * The largest record (one line, in bytes) read: a longer line is rejected unread, so one runaway record (a
 * 200 MB blob) cannot take the run's memory. `EXECRETRIEVAL_MAX_RECORD_BYTES` overrides it.
 */
export const DEFAULT_MAX_RECORD_BYTES = 8 * 1024 * 1024;

export function maxRecordBytes(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.EXECRETRIEVAL_MAX_RECORD_BYTES;
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_RECORD_BYTES;
}

/**
 * A file's bytes; gzip is recognised by its magic bytes (1f 8b), whatever the file is called. A file named `.gz`
 * without them is refused (issue 37: it was read as text, so a damaged or mislabelled archive parsed as garbage lines).
 */
export function readBytes(file: string): Buffer {
  const buf = readFileSync(file);
  const gzip = buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  if (!gzip && /\.gz$/i.test(file)) throw new Error(`${file}: named .gz but not gzip (its first bytes are not 1f 8b): rename it, or compress it with gzip`);
  if (gzip) {
    try {
      return gunzipSync(buf);
    } catch (e) {
      throw new Error(`${file}: not a readable gzip file (${(e as Error).message})`);
    }
  }
  return buf;
}

/**
 * The one reader of task files (validate, build, import: tasks, MBPP, mapped JSONL, release files): a JSON-lines
 * file, plain or gzipped, one object per non-blank line. Each line is checked on its own: longer than the record
 * cap (RECORD_TOO_LARGE), not valid UTF-8 (INVALID_UTF8: never replaced silently), not JSON or not an object
 * (INVALID_JSON) each become a rejection naming file and line, and the other records are still returned.
 */
export function readJsonl(file: string, opts: { maxRecordBytes?: number } = {}): { records: JsonlRecord[]; rejections: ImportRejection[] } {
  const max = opts.maxRecordBytes ?? maxRecordBytes();
  const records: JsonlRecord[] = [];
  const rejections: ImportRejection[] = [];
  const reject = (line: number, code: string, message: string) => rejections.push({ file, line, field: '(record)', code, message });
  const buf = readBytes(file);
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let line = 0;
  for (let start = 0; start <= buf.length; ) {
    let end = buf.indexOf(0x0a, start);
    if (end < 0) end = buf.length;
    const bytes = buf.subarray(start, end);
    start = end + 1;
    line++;
    if (bytes.length > max) {
      reject(line, 'RECORD_TOO_LARGE', `record of ${bytes.length} bytes is over the ${max}-byte limit (EXECRETRIEVAL_MAX_RECORD_BYTES): skipped unread`);
      continue;
    }
    let src: string;
    try {
      src = utf8.decode(bytes);
    } catch {
      reject(line, 'INVALID_UTF8', 'not valid UTF-8: the record is skipped (re-encode the file as UTF-8)');
      continue;
    }
    if (!src.trim()) continue;
    // parseJsonl numbers its one line 1: report the file's line instead.
    parseJsonl(src, AnyObject, {
      record: (_, value) => records.push({ line, value }),
      badJson: (_, message) => reject(line, 'INVALID_JSON', message),
      invalid: (_, issues) => reject(line, 'INVALID_JSON', issues[0].message),
    });
  }
  return { records, rejections };
}

/** `\r\n` (and a lone `\r`) to `\n`: MBPP ships Windows line endings, and a mutant's byte offsets assume `\n`. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
