import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { ExecCache } from '../../activities/exec/cache.ts';
import { defaultCachePath } from '../../activities/exec/oracle.ts';
import { embeddingCachePath } from '../../activities/paths.ts';
import { EXIT_CODES, StopError, repairCommand } from '../../activities/faults.ts';
import { repairCache, verifyCache } from '../../activities/storage/cacheRepair.ts';

export function registerCache(program: Command): void {
  const cache = program.command('cache').description('Inspect, export, verify or repair the caches (.execretrieval/exec-cache.sqlite, embedding-cache.sqlite)');
  cache
    .command('stats')
    .description('number of cached (code, suite) executions')
    .option('--path <file>', 'cache file', defaultCachePath())
    .option('--json', 'print JSON')
    .action((opts: { path: string; json?: boolean }) => {
      const c = new ExecCache(opts.path);
      const rows = c.count();
      c.close();
      console.log(opts.json ? JSON.stringify({ path: opts.path, rows }) : `${opts.path}: ${rows} rows`);
    });
  cache
    .command('export')
    .description('write every cached execution to Parquet (key, runner_version, outcomes_json, n_tests, n_pass, wall_ms, created_at)')
    .argument('<out>', 'output .parquet file')
    .option('--path <file>', 'cache file', defaultCachePath())
    .action((out: string, opts: { path: string }) => {
      const c = new ExecCache(opts.path);
      const n = c.exportParquet(out);
      c.close();
      console.log(`wrote ${n} rows to ${out}`);
    });
  cache
    .command('verify')
    .description('SQLite integrity_check plus every row read back as the cache reads it; one line per file')
    .option('--path <file>', 'cache file (default: the execution and embedding caches that exist)')
    .addHelpText('after', `\nExit code: 0 when every file is sound; ${EXIT_CODES.infra} when one is damaged (the line names the repair command).`)
    .action((opts: { path?: string }) => {
      const paths = opts.path ? [opts.path] : [defaultCachePath(), embeddingCachePath()].filter((p) => existsSync(p));
      if (!paths.length) console.log('no cache files yet');
      for (const p of paths) {
        const h = verifyCache(p);
        if (h.ok) {
          console.log(`${p}: ok (${h.kind}, ${h.rows_readable} rows)`);
          continue;
        }
        const what = [
          ...h.problems.slice(0, 1),
          ...(h.scan_incomplete ? ['rows on damaged pages cannot be read'] : []),
          ...(h.rows_invalid ? [`${h.rows_invalid} rows do not read back as valid entries`] : []),
        ].join('; ');
        console.log(`${p}: damaged (${what}; ${h.rows_readable} rows readable): run \`${repairCommand(p)}\``);
        process.exitCode = EXIT_CODES.infra;
      }
    });
  cache
    .command('repair')
    .description('rebuild a damaged cache file from the rows it can still read (the rest is recomputed); the damaged file is kept as <file>.damaged')
    .requiredOption('--path <file>', 'cache file to repair (stop every process that uses it first)')
    .action((opts: { path: string }) => {
      if (!existsSync(opts.path)) throw new StopError(`${opts.path}: no such file`, 1);
      const r = repairCache(opts.path);
      console.log(
        r.kind === 'unknown'
          ? `${r.path}: not readable as a cache at all; moved to ${r.damaged_copy}, a new empty cache starts on next use`
          : `${r.path}: rebuilt with ${r.kept} readable rows (${r.dropped_invalid} invalid rows dropped; rows on damaged pages are recomputed on next use); damaged file kept as ${r.damaged_copy}`,
      );
    });
}
