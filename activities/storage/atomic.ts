import { mkdirSync, renameSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Write a file so that readers see either the old content or the new, never a torn one. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** One JSON object per line, written atomically. Key order is the objects' own, so equal inputs give equal bytes. */
export function writeJsonlAtomic(path: string, records: readonly unknown[]): void {
  writeFileAtomic(path, records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : ''));
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}
