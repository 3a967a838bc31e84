import { dirname, join, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

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
