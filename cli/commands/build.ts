import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import type { Command } from 'commander';
import { basename, dirname, resolve } from 'node:path';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { checkProfile, checkSource, sourceForLanguage } from '../options.ts';

/** `build`: the pipeline's build stage alone (`run --until build`), for a benchmark at <run dir>/benchmark. */
export function registerBuild(program: Command): void {
  program
    .command('build')
    .description('Build an execution-verified benchmark with mechanical distractors (import, mutate + verify, gate; writes queries.jsonl, corpus.jsonl, Parquet copies, report.json, manifest.json): the build stage of `run`, on Temporal, its mutant rounds in batches on the exec queue')
    .requiredOption('--source <source>', 'mbpp | curated | a task .jsonl file or directory | a release directory (queries.jsonl + corpus.jsonl)')
    .requiredOption('--out <dir>', '<run dir>/benchmark, e.g. runs/<run-id>/benchmark (the run\'s manifest.json and pipeline/ files go in <run dir>)')
    .option('--seed <n>', 'seed for the mutant verification order (recorded in the manifest)', (v) => Number(v), DEFAULT_SEED)
    .option('--profile <name>', 'gate profile: default (4 distractors, 7-10 tests), check (1-4 distractors, suites of any size), mbpp, canonical (default: mbpp for MBPP, default otherwise)')
    .option('--cap <n>', 'most candidates verified per task (default 40)', (v) => Number(v))
    .option('--language <ids>', 'with --source curated: the curated set of each language (python, javascript, typescript, go; comma-separated for a mixed build)')
    .option('--no-worker', 'run no worker in this process (workers elsewhere serve the queues: needs TEMPORAL_ADDRESS)')
    .addHelpText(
      'after',
      '\nExample:\n  $ execretrieval build --source mbpp --out runs/mbpp/benchmark     # the same as: execretrieval run --run mbpp --source mbpp --until build --rebuild' +
        '\nExit codes: 0 built, nothing rejected; 1 built, but records were rejected (each listed above the summary; report.json has them all); 2 bad option; 3 no task accepted (the line names the stage that rejected them); 5 infrastructure (Temporal server lost, sandbox or cache fault): rerun the same command.',
    )
    .action(async (opts: { source: string; out: string; seed: number; profile?: string; cap?: number; worker: boolean; language?: string }) => {
      if (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed > 0xffffffff) throw new CliError(`--seed must be an integer in [0, 2^32), got ${opts.seed}`, EXIT_CODES.usage);
      if (opts.cap !== undefined && !(Number.isInteger(opts.cap) && opts.cap >= 1)) throw new CliError(`--cap: expected an integer >= 1, got ${opts.cap}`, EXIT_CODES.usage);
      const out = resolve(opts.out);
      if (basename(out) !== 'benchmark') {
        throw new CliError(`--out ${opts.out}: the benchmark goes in <run dir>/benchmark (e.g. runs/<run-id>/benchmark), where the rest of the run finds it`, EXIT_CODES.usage);
      }
      await checkProfile(opts.profile);
      opts.source = await sourceForLanguage(opts.source, opts.language);
      await checkSource(opts.source);
      // Imported when the command runs, not when it is registered: `--help` and usage errors need none of it.
      const { runBuildStage } = await import('../buildStage.ts');
      const { report } = await runBuildStage({ runDir: dirname(out), source: opts.source, seed: opts.seed, profile: opts.profile, cap: opts.cap, worker: opts.worker });
      // The exit-code table (activities/faults.ts, README): rejected records are a partial result, not success.
      if (report.rejections.length) process.exitCode = EXIT_CODES.failed;
    });
}
