import { dirname, join, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, readdirSync, statSync } from 'node:fs';

/** The repository root (where package.json lives), whatever the current directory. */
export function projectRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..');
}

/** Shared state: execution cache, embedding cache, Temporal dev-server database. */
export function stateDir(): string {
  return process.env.EXECRETRIEVAL_STATE_DIR ?? join(projectRoot(), '.execretrieval');
}

/** A run given as a path, or as an id under runs/. */
export function resolveRunDir(run: string): string {
  if (isAbsolute(run) || run.includes('/') || existsSync(run)) return resolve(run);
  return join(projectRoot(), 'runs', run);
}

/** The JSONL files a path names: the file itself, or every *.jsonl and *.jsonl.gz in a directory (sorted). */
export function jsonlFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith('.jsonl') || f.endsWith('.jsonl.gz'))
    .sort()
    .map((f) => join(path, f));
}

/** The shared embedding cache (SQLite): EXECRETRIEVAL_EMBED_CACHE when set, else in the state directory. */
export function embeddingCachePath(env: Readonly<Record<string, string | undefined>> = process.env, state: string = stateDir()): string {
  return env.EXECRETRIEVAL_EMBED_CACHE ?? join(state, 'embedding-cache.sqlite');
}

/** Where local embedding models' weights live (`<state>/models/<model>/`). */
export function modelRoot(state: string = stateDir()): string {
  return join(state, 'models');
}
