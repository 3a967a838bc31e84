import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DamagedRunFileError, differsFromHash } from '../faults.ts';

/**
 * Whether a benchmark folder is a finished build: `build` writes manifest.json last, with the sha256 of every
 * file it wrote before. A folder without it, or whose files no longer match it, was left half-written (a killed
 * build) or edited since, and must be built again, never trusted.
 */
export function benchmarkCompleteness(dir: string): { complete: true } | { complete: false; reason: string } {
  if (!existsSync(dir)) return { complete: false, reason: 'not built yet' };
  const manifestPath = join(dir, 'manifest.json');
  let files: Record<string, string>;
  try {
    files = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { files?: Record<string, string> }).files ?? {};
  } catch {
    return { complete: false, reason: existsSync(manifestPath) ? 'manifest.json is unreadable' : 'no manifest.json (an interrupted build)' };
  }
  if (!files['queries.jsonl']) return { complete: false, reason: 'manifest.json lists no queries.jsonl' };
  for (const [name, want] of Object.entries(files)) {
    const path = join(dir, name);
    if (!existsSync(path)) return { complete: false, reason: `${name} is missing` };
    if (createHash('sha256').update(readFileSync(path)).digest('hex') !== want) return { complete: false, reason: `${name} differs from its manifest hash` };
  }
  return { complete: true };
}

/**
 * Stops with DamagedRunFileError when one of `names` in a benchmark folder differs from the hash its manifest.json
 * recorded (issue 37: ten edited snippets in corpus.jsonl changed 500 numbers, exit 0). A folder without a manifest
 * (a release written by hand) has nothing to check against and is read as it is; an unreadable manifest stops too.
 */
export function assertBenchmarkIntact(dir: string, names: readonly string[]): void {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return;
  const fix = 'restore it, or build the benchmark again (`execretrieval run` rebuilds an incomplete benchmark from its source; executions come from the cache)';
  let files: Record<string, string>;
  try {
    files = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { files?: Record<string, string> }).files ?? {};
  } catch (err) {
    throw new DamagedRunFileError(manifestPath, `not readable (${(err as Error).message})`, fix);
  }
  for (const name of names) {
    const want = files[name];
    if (want && createHash('sha256').update(readFileSync(join(dir, name))).digest('hex') !== want) throw new DamagedRunFileError(join(dir, name), differsFromHash(`${name}`), fix);
  }
}
