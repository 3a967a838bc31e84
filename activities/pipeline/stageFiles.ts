/**
 * Files the pipeline keeps under runs/<id>/ besides the stages' own outputs (the coordinator writes them all):
 *   manifest.json                       the run manifest: settings, and per stage its outputs (paths, content hashes, counts)
 *   pipeline/pending/<stage>-<h>.jsonl  the executions one attempt of a stage asked for, one a line; the workflow
 *                                       hands them to the exec queue batch by batch, in the activity input
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../storage/atomic.ts';
import { pendingHash, type PendingExec } from './deferredExec.ts';

export const runManifestPath = (runDir: string) => join(runDir, 'manifest.json');

export const sha256File = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** path -> sha256 for each file that exists (a stage's outputs as the manifest records them). */
export function hashFiles(paths: readonly string[]): Record<string, string> {
  return Object.fromEntries(paths.filter((p) => existsSync(p)).map((p) => [p, sha256File(p)]));
}

/** One batch of a pending file: bytes [start, end) hold `count` requests, whole lines. */
export type PendingBatch = [start: number, end: number, count: number];

export interface PendingFile {
  file: string;
  count: number;
  sha256: string;
  /** The file cut into batches of at most `batchSize` requests and `maxBytes` bytes (one larger request is a batch alone). */
  batches: PendingBatch[];
}

/**
 * Batches travel in activity inputs, and Temporal refuses a payload over 2 MB: 512 KB keeps a batch (and its
 * place in the workflow's history) well under it whatever the code's size.
 */
export const BATCH_MAX_BYTES = 512 * 1024;

/**
 * Writes a stage attempt's misses, one JSON line each, and cuts them into batches; the name is the content hash,
 * so a retried attempt writes the same file (and the same batches).
 */
export function writePending(runDir: string, stage: string, pending: readonly PendingExec[], batchSize = 24, maxBytes = BATCH_MAX_BYTES): PendingFile {
  const sha = pendingHash(pending);
  const file = join(runDir, 'pipeline', 'pending', `${stage}-${sha.slice(0, 16)}.jsonl`);
  const lines = pending.map((p) => Buffer.from(JSON.stringify(p) + '\n', 'utf8'));
  const batches: PendingBatch[] = [];
  let at = 0;
  let open: PendingBatch | null = null;
  for (const line of lines) {
    if (open && (open[2] >= batchSize || open[1] - open[0] + line.length > maxBytes)) open = null;
    if (!open) batches.push((open = [at, at, 0]));
    open[1] += line.length;
    open[2]++;
    at += line.length;
  }
  if (!existsSync(file)) writeFileAtomic(file, Buffer.concat(lines));
  return { file, count: pending.length, sha256: sha, batches };
}

/** The requests in bytes [start, end) of a pending file: reads that range only (a round's batches read it once in all). */
export function readPendingSlice(file: string, start: number, end: number): PendingExec[] {
  if (!(start >= 0 && end >= start)) throw new Error(`${file}: batch [${start}, ${end}) is not a byte range`);
  const buf = Buffer.alloc(end - start);
  const fd = openSync(file, 'r');
  try {
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) throw new Error(`${file}: batch [${start}, ${end}) is past the file's end (${start + got} bytes)`);
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  const text = buf.toString('utf8');
  if (text.length && !text.endsWith('\n')) throw new Error(`${file}: batch [${start}, ${end}) does not end at a line's end`);
  return text.split('\n').filter(Boolean).map((l, i) => {
    try {
      return JSON.parse(l) as PendingExec;
    } catch {
      throw new Error(`${file}: request ${i + 1} of batch [${start}, ${end}) is not JSON`);
    }
  });
}

/** Every request of a pending file (tests, and tools that count what a run asked for). */
export function readPendingFile(file: string): PendingExec[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as PendingExec);
}
