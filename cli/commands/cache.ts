import { Option, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { ExecCache } from '../../activities/exec/cache.ts';
import { defaultCachePath } from '../../activities/exec/oracle.ts';
import { embeddingCachePath } from '../../activities/paths.ts';
import { defaultMutationCachePath } from '../../activities/mutation/cache.ts';
import { EXIT_CODES, StopError, repairCommand } from '../../activities/faults.ts';
import { repairCache, verifyCache, type RepairResult } from '../../activities/storage/cacheRepair.ts';

export function registerCache(program: Command): void {
  const cache = program.command('cache').description('Inspect, export, verify or repair the caches (.execretrieval/exec-cache.sqlite, embedding-cache.sqlite, mutation-cache.sqlite)');
  cache.addHelpText('after', '\nExample:\n  $ execretrieval cache verify');
  cache
    .command('stats')
    .description('number of cached (code, suite) executions')
    .addHelpText('after', '\nExample:\n  $ execretrieval cache stats --json')
    .addOption(new Option('--path <file>', 'cache file').default(defaultCachePath(), 'the execution cache, <state>/exec-cache.sqlite'))
    .option('--json', 'print JSON')
    .action((opts: { path: string; json?: boolean }) => {
      const c = new ExecCache(opts.path);
      const rows = c.count();
      c.close();
      console.log(opts.json ? JSON.stringify({ path: opts.path, rows }) : `${opts.path}: ${rows} rows`);
    });
  cache
    .command('export')
    .addHelpText('after', '\nExample:\n  $ execretrieval cache export exec-cache.parquet   # then: duckdb -c "SELECT n_pass, count(*) FROM \'exec-cache.parquet\' GROUP BY 1"')
    .description('write every cached execution that verifies to Parquet (key, runner_version, outcomes_json, n_tests, n_pass, wall_ms, created_at); rows that fail their checksum are skipped and counted')
    .argument('<out>', 'output .parquet file')
    .addOption(new Option('--path <file>', 'cache file').default(defaultCachePath(), 'the execution cache, <state>/exec-cache.sqlite'))
    .action((out: string, opts: { path: string }) => {
      const c = new ExecCache(opts.path);
      const { written, skipped } = c.exportParquet(out);
      c.close();
      console.log(`wrote ${written} rows to ${out}`);
      if (skipped) {
        // The file holds only rows that verify; the exit code still says the cache is damaged, as `cache verify` does.
        console.error(`${opts.path}: skipped ${skipped} rows that fail their checksum (not results): run \`${repairCommand(opts.path)}\``);
        process.exitCode = EXIT_CODES.infra;
      }
    });
  cache
    .command('verify')
    .addHelpText('after', '\nExample:\n  $ execretrieval cache verify   # the execution, embedding and mutation caches, one line each')
    .description('SQLite integrity_check plus every row read back and checked against its checksum, as the cache reads it; one line per file')
    .option('--path <file>', 'cache file (default: the execution, embedding and mutation caches that exist)')
    .addHelpText('after', `\nExit code: 0 when every file is sound; ${EXIT_CODES.infra} when one is damaged (the line names the repair command).`)
    .action((opts: { path?: string }) => {
      const paths = opts.path ? [opts.path] : [defaultCachePath(), embeddingCachePath(), defaultMutationCachePath()].filter((p) => existsSync(p));
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
          ...(h.rows_invalid ? [`${h.rows_invalid} rows fail their checksum`] : []),
        ].join('; ');
        console.log(`${p}: damaged (${what}; ${h.rows_readable} rows readable): run \`${repairCommand(p)}\``);
        process.exitCode = EXIT_CODES.infra;
      }
    });
  cache
    .command('repair')
    .addHelpText('after', '\nExample:\n  $ execretrieval cache repair --path .execretrieval/exec-cache.sqlite   # the file `cache verify` named (a checkout\'s state folder)')
    .description('rebuild a damaged cache file from exactly the rows that verify (checksum), recovering rows past damaged pages (the rest is recomputed); the damaged file is kept as <file>.damaged')
    .requiredOption('--path <file>', 'cache file to repair (stop every process that uses it first)')
    .action((opts: { path: string }) => {
      if (!existsSync(opts.path)) throw new StopError(`${opts.path}: no such file`, 1);
      const r = repairCache(opts.path);
      console.log(
        r.kind === 'unknown'
          ? `${r.path}: not readable as a cache at all; moved to ${r.damaged_copy}, a new empty cache starts on next use`
          : `${r.path}: rebuilt with ${r.kept} rows that verify (${r.recovered} of them recovered past damaged pages); dropped ${droppedText(r)} (recomputed on next use); damaged file kept as ${r.damaged_copy}`,
      );
    });
}

/** How many rows repair dropped: those that failed their checksum, and those lost with their pages when an index still counts them. */
function droppedText(r: RepairResult): string {
  const lost = r.rows_before === null ? null : Math.max(0, r.rows_before - r.kept - r.dropped_invalid);
  const parts = [`${r.dropped_invalid} rows that fail their checksum`];
  parts.push(lost === null ? 'and any rows on pages that could not be read (not counted: no index of the table is whole)' : `and ${lost} rows on pages that could not be read`);
  return parts.join(' ');
}
