/**
 * `--rebuild-cache`, one flag path for every command that reads the caches (score, generate benchmark, run, embed,
 * build, validate): before the command's action (so before any in-process worker opens them), each cache file
 * that fails SQLite's quick_check is moved aside as `<file>.damaged` and started empty, with one line saying so.
 * Without the flag a damaged cache stops the command with one line naming the file and both fixes.
 */
import type { Command } from 'commander';
import { join } from 'node:path';
import { embeddingCachePath, stateDir } from '../activities/paths.ts';

/** Commands (space-separated path under the program) that get the flag. */
export const REBUILD_CACHE_COMMANDS = ['score', 'generate benchmark', 'run', 'embed', 'build', 'validate'] as const;

const HELP = 'a cache that fails its check on open (.execretrieval/exec-cache.sqlite, embedding-cache.sqlite, mutation-cache.sqlite) is moved aside as <file>.damaged and rebuilt from scratch (stop other processes using it first)';

function find(program: Command, path: string): Command | undefined {
  let cmd: Command | undefined = program;
  for (const name of path.split(' ')) cmd = cmd?.commands.find((c) => c.name() === name);
  return cmd;
}

/**
 * The caches a command may open: the execution cache (oracle.ts defaultCachePath, without importing the oracle), the
 * embedding cache (both honour their env overrides) and the mutation cache (mutation/cache.ts, likewise not imported).
 */
export const cachePaths = (): string[] => [join(stateDir(), 'exec-cache.sqlite'), embeddingCachePath(process.env), join(stateDir(), 'mutation-cache.sqlite')];

/**
 * Caches this process moved aside (`--rebuild-cache`): a workflow left open by an earlier command ran on the old
 * file and may have failed on it, so commands that would attach to one start afresh instead (cli/commands/embed.ts).
 */
export const rebuiltCaches: string[] = [];

export function addRebuildCacheFlag(program: Command, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): void {
  for (const path of REBUILD_CACHE_COMMANDS) {
    const cmd = find(program, path);
    if (!cmd) continue;
    cmd.option('--rebuild-cache', HELP).hook('preAction', async (_self, action) => {
      if (!action.opts().rebuildCache) return;
      // Loaded only when the flag is given: SQLite and the cache modules cost ~0.7 s of every command's start.
      const { rebuildIfDamaged } = await import('../activities/storage/cacheRepair.ts');
      for (const file of cachePaths()) {
        const r = rebuildIfDamaged(file);
        if (r) rebuiltCaches.push(file);
        if (r) log(`${file}: damaged cache (${r.detail}): moved aside to ${r.damaged_copy}; rebuilding it from scratch (--rebuild-cache)`);
      }
    });
  }
}

/**
 * `run`: every cache that exists is opened with its check (quick_check) before the pipeline starts, so a damaged
 * one stops the run with one line (DamagedCacheError: file and both fixes, exit 5) before build and embed have run,
 * not when the score stage first opens it. SQLite is loaded here only (callers import this lazily).
 */
export async function checkCachesOnStart(): Promise<void> {
  const { existsSync } = await import('node:fs');
  const { openCacheDb } = await import('../activities/storage/sqliteChecked.ts');
  for (const file of cachePaths()) if (existsSync(file)) openCacheDb(file, { busyTimeoutMs: 10_000 }).close();
}
