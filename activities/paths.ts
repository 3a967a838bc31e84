import { dirname, join, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homeLayout } from '../infra/home.js';

/** The repository root (where package.json lives), whatever the current directory. */
export function projectRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..');
}

/**
 * Where this installation keeps state, its venv and runs (infra/home.js): in a checkout, inside it; installed
 * with npm, runs under the current folder and the rest in EXECRETRIEVAL_HOME (default ~/.execretrieval).
 */
export function layout() {
  return homeLayout(projectRoot());
}

/** Shared state: execution cache, embedding cache, Temporal dev-server database (EXECRETRIEVAL_STATE_DIR moves only these). */
export function stateDir(): string {
  return process.env.EXECRETRIEVAL_STATE_DIR ?? layout().state;
}

/** The Python venv bootstrap fills from infra/requirements.txt (the temporal binary, pyarrow, ...). */
export function venvDir(): string {
  return layout().venv;
}

/** Where a run id resolves: `<runs>/<id>`. */
export function runsDir(): string {
  return layout().runs;
}

/** A run given as a path, or as an id under runs/. */
export function resolveRunDir(run: string): string {
  if (isAbsolute(run) || run.includes('/') || existsSync(run)) return resolve(run);
  return join(runsDir(), run);
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
