import { accessSync, constants, existsSync, mkdirSync, renameSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DiskFullError, EXIT_CODES, StopError, fatalFault } from '../faults.ts';

/** Codes of a folder the process may not write in. */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Write a file so that readers see either the old content or the new, never a torn one. A full disk or a folder the
 * process may not write in stops with one line naming the file (Node's own message names the temporary file, or no
 * path at all: `ENOSPC: no space left on device, write`), exit 5; the temporary file is removed.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    ensureDir(dirname(path));
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    const code = (err as { code?: unknown }).code;
    if (fatalFault(err) && !(err instanceof StopError)) throw new DiskFullError(`${code} writing ${path}`);
    if (typeof code === 'string' && NOT_WRITABLE.has(code)) throw new StopError(`cannot write ${path}: ${code} (the folder is not writable for this user): choose another folder or fix its permissions`, EXIT_CODES.infra);
    throw err;
  }
}

/**
 * mkdir -p. A recursive mkdir under a read-only or forbidden folder says ENOENT (Node reports the missing level, not
 * why it could not be made): the nearest existing folder is asked for write access, which throws the real reason.
 */
function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ENOENT') throw err;
    let at = dirname(dir);
    while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
    accessSync(at, constants.W_OK);
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
