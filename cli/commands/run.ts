import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveRunDir } from '../../activities/paths.ts';
import { benchmarkCompleteness } from '../../activities/benchmark/complete.ts';
import { BM25_CONFIG_ID } from '../../activities/scoring/configs.ts';
import { CliError, EXIT } from '../errors.ts';

/**
 * The main job end to end: build a benchmark (mechanical distractors, five gates) → embed it under every
 * configuration that can run here (local models; hosted ones when their keys are set) → rank, execute the
 * top 10 and score → report. Each step is the same subcommand a user would run by hand, and each is
 * resumable: a rerun re-executes and re-embeds nothing that is cached.
 */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Build → embed → score → report in one go (each step is also its own subcommand)')
    .option('--source <source>', 'mbpp | curated | tasks .jsonl | release directory', 'curated')
    .option('--id <run-id>', 'run id (outputs in runs/<run-id>/)', 'default')
    .option('--configs <ids>', 'embedding configurations (default: every one that can run here)')
    .option('--seed <n>', 'seed for mutant order and bootstrap', '0')
    .option('--profile <name>', 'gate profile for build (default, check, mbpp, canonical; default: mbpp for MBPP, default otherwise)')
    .option('--cap <n>', 'build: most candidates verified per task')
    .option('--rebuild', 'build the benchmark again even if runs/<id>/benchmark exists')
    .action(async (opts: { source: string; id: string; configs?: string; seed: string; profile?: string; cap?: string; rebuild?: boolean }) => {
      const runDir = resolveRunDir(opts.id);
      const benchmark = join(runDir, 'benchmark');
      const { buildProgram } = await import('../main.ts');
      const step = async (name: string, args: string[]) => {
        console.error(`\n== ${name}: execretrieval ${args.join(' ')}`);
        try {
          await buildProgram().parseAsync(['node', 'execretrieval', ...args]);
        } catch (e) {
          throw new CliError(`run stopped at ${name}: ${(e as Error).message}`, e instanceof CliError ? e.exitCode : 1);
        }
        if (process.exitCode) throw new CliError(`run stopped at ${name} (exit ${process.exitCode})`, Number(process.exitCode));
      };
      const queries = join(benchmark, 'queries.jsonl');
      const built = benchmarkCompleteness(benchmark);
      if (!opts.rebuild && !built.complete && existsSync(benchmark)) console.error(`== build: ${benchmark} is incomplete (${built.reason}): building it again`);
      if (opts.rebuild || !built.complete) {
        await step('build', [
          'build', '--source', opts.source, '--out', benchmark, '--seed', opts.seed,
          ...(opts.profile ? ['--profile', opts.profile] : []), ...(opts.cap ? ['--cap', opts.cap] : []),
        ]);
      } else {
        console.error(`== build: ${benchmark} exists (use --rebuild to build again)`);
      }
      // Never embed an empty benchmark (an earlier build that accepted nothing still wrote its files).
      if (!readFileSync(queries, 'utf8').trim()) {
        throw new CliError(`run: ${queries} has no queries (the build accepted no task; see ${join(benchmark, 'report.json')}); fix the source and run again with --rebuild`, EXIT.NO_TASK_ACCEPTED);
      }
      await step('embed', ['embed', runDir, ...(opts.configs ? ['--configs', opts.configs] : [])]);
      // The BM25 baseline is always scored; append it only when the user did not list it already.
      const scoreConfigs = opts.configs ? opts.configs.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      if (scoreConfigs && !scoreConfigs.includes(BM25_CONFIG_ID)) scoreConfigs.push(BM25_CONFIG_ID);
      await step('score', ['score', runDir, ...(scoreConfigs ? ['--configs', scoreConfigs.join(',')] : [])]);
      console.error(`\nreport: ${join(runDir, 'report', 'report.md')} and report.html`);
    });
}
