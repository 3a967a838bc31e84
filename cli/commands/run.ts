import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveRunDir } from '../../activities/paths.ts';
import { BM25_CONFIG_ID } from '../../activities/scoring/configs.ts';

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
    .option('--rebuild', 'build the benchmark again even if runs/<id>/benchmark exists')
    .action(async (opts: { source: string; id: string; configs?: string; seed: string; rebuild?: boolean }) => {
      const runDir = resolveRunDir(opts.id);
      const benchmark = join(runDir, 'benchmark');
      const { buildProgram } = await import('../main.ts');
      const step = async (name: string, args: string[]) => {
        console.error(`\n== ${name}: execretrieval ${args.join(' ')}`);
        await buildProgram().parseAsync(['node', 'execretrieval', ...args]);
        if (process.exitCode) throw new Error(`${name} failed (exit ${process.exitCode})`);
      };
      if (opts.rebuild || !existsSync(join(benchmark, 'queries.jsonl'))) {
        await step('build', ['build', '--source', opts.source, '--out', benchmark, '--seed', opts.seed]);
      } else {
        console.error(`== build: ${benchmark} exists (use --rebuild to build again)`);
      }
      await step('embed', ['embed', runDir, ...(opts.configs ? ['--configs', opts.configs] : [])]);
      // The BM25 baseline is always scored; append it only when the user did not list it already.
      const scoreConfigs = opts.configs ? opts.configs.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      if (scoreConfigs && !scoreConfigs.includes(BM25_CONFIG_ID)) scoreConfigs.push(BM25_CONFIG_ID);
      await step('score', ['score', runDir, ...(scoreConfigs ? ['--configs', scoreConfigs.join(',')] : [])]);
      console.error(`\nreport: ${join(runDir, 'report', 'report.md')} and report.html`);
    });
}
