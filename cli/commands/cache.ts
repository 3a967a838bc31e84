import type { Command } from 'commander';
import { ExecCache } from '../../activities/exec/cache.ts';
import { defaultCachePath } from '../../activities/exec/oracle.ts';

export function registerCache(program: Command): void {
  const cache = program.command('cache').description('Inspect or export the execution cache (.execretrieval/exec-cache.sqlite)');
  cache
    .command('stats')
    .description('number of cached (code, suite) executions')
    .option('--path <file>', 'cache file', defaultCachePath())
    .action((opts: { path: string }) => {
      const c = new ExecCache(opts.path);
      console.log(`${opts.path}: ${c.count()} rows`);
      c.close();
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
}
