/**
 * Files the pipeline keeps under runs/<id>/ besides the stages' own outputs:
 *   manifest.json                      the run manifest: settings, and per stage its outputs (paths, content hashes, counts)
 *   pipeline/pending/<stage>-<h>.json  the executions one attempt of a stage asked for (run in batches on the exec queue)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { pendingHash, type PendingExec } from './deferredExec.ts';

export const runManifestPath = (runDir: string) => join(runDir, 'manifest.json');

export const sha256File = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** path -> sha256 for each file that exists (a stage's outputs as the manifest records them). */
export function hashFiles(paths: readonly string[]): Record<string, string> {
  return Object.fromEntries(paths.filter((p) => existsSync(p)).map((p) => [p, sha256File(p)]));
}

export interface PendingFile {
  file: string;
  count: number;
  sha256: string;
}

/** Writes a stage attempt's misses where the batch activities read them; the name is the content hash, so a retried attempt writes the same file. */
export function writePending(runDir: string, stage: string, pending: readonly PendingExec[]): PendingFile {
  const sha = pendingHash(pending);
  const file = join(runDir, 'pipeline', 'pending', `${stage}-${sha.slice(0, 16)}.json`);
  if (!existsSync(file)) writeJsonAtomic(file, pending);
  return { file, count: pending.length, sha256: sha };
}

export function readPending(file: string, start: number, end: number): PendingExec[] {
  const all = JSON.parse(readFileSync(file, 'utf8')) as PendingExec[];
  if (!Array.isArray(all) || start < 0 || end > all.length || start > end) throw new Error(`${file}: batch [${start}, ${end}) is outside its ${Array.isArray(all) ? all.length : 0} requests`);
  return all.slice(start, end);
}

