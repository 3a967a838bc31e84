import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveRunDir } from '../../activities/paths.ts';
import { benchmarkCompleteness } from '../../activities/benchmark/complete.ts';
import { BM25_CONFIG_ID } from '../../activities/scoring/configs.ts';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { DEFAULT_SEED, type RunConfig } from '../../schemas/runConfig.ts';
import { loadRunConfig } from '../../activities/runConfigFile.ts';
import { StopError } from '../../activities/faults.ts';

/**
 * The main job end to end: build a benchmark (mechanical distractors, five gates) → embed it under every
 * configuration that can run here (local models; hosted ones when their keys are set) → rank, execute the
 * top 10 and score → report. Each step is the same subcommand a user would run by hand, and each is
 * resumable: a rerun re-executes and re-embeds nothing that is cached.
 */
/** What `run` does after merging flags over the file over the defaults. */
interface RunSettings {
  id: string;
  source: string;
  profile?: string;
  cap?: number;
  seed: number;
  configs?: string[];
  replicates?: number;
  timeout_s?: number;
  rebuild: boolean;
}

const DEFAULTS = { id: 'default', source: 'curated', seed: DEFAULT_SEED, rebuild: false } as const;

/** Flags given on the command line win over the file, the file over the defaults. */
function settingsOf(cmd: Command, file: RunConfig): RunSettings {
  const given = <T>(name: string, value: T): T | undefined => (cmd.getOptionValueSource(name) === 'cli' ? value : undefined);
  const o = cmd.opts<{ source?: string; id?: string; configs?: string; seed?: number; profile?: string; cap?: number; rebuild?: boolean; replicates?: number; timeout?: number }>();
  const configs = given('configs', o.configs)?.split(',').map((s) => s.trim()).filter(Boolean) ?? file.configs;
  return {
    id: given('id', o.id) ?? file.id ?? DEFAULTS.id,
    source: given('source', o.source) ?? file.source ?? DEFAULTS.source,
    profile: given('profile', o.profile) ?? file.profile,
    cap: given('cap', o.cap) ?? file.cap,
    seed: given('seed', o.seed) ?? file.seed ?? DEFAULTS.seed,
    configs: configs?.length ? configs : undefined,
    replicates: given('replicates', o.replicates) ?? file.replicates,
    timeout_s: given('timeout', o.timeout) ?? file.timeout_s,
    rebuild: given('rebuild', o.rebuild) ?? file.rebuild ?? DEFAULTS.rebuild,
  };
}

const intOption = (flag: string, min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag}: expected an integer >= ${min}, got '${v}'`, EXIT_CODES.usage);
  return n;
};

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Build → embed → score → report in one go (each step is also its own subcommand)')
    .argument('[config]', 'a run configuration file (YAML, every field documented in data/run.example.yaml); flags override it')
    .option('--source <source>', `mbpp | curated | tasks .jsonl | release directory (default: ${DEFAULTS.source})`)
    .option('--id <run-id>', `run id: outputs in runs/<run-id>/ (default: ${DEFAULTS.id})`)
    .option('--configs <ids>', 'embedding configurations (default: every one that can run here); BM25 is always scored')
    .option('--seed <n>', `seed for mutant order and bootstrap (default: ${DEFAULT_SEED})`, intOption('--seed', 0))
    .option('--profile <name>', 'gate profile for build (default, check, mbpp, canonical; default: mbpp for MBPP, default otherwise)')
    .option('--cap <n>', 'build: most candidates verified per task', intOption('--cap', 1))
    .option('--replicates <n>', 'score: bootstrap replicates (default 5000)', intOption('--replicates', 1))
    .option('--timeout <seconds>', 'score: per-suite execution timeout (default 5)', (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new CliError(`--timeout: expected a positive number of seconds, got '${v}'`, EXIT_CODES.usage);
      return n;
    })
    .option('--rebuild', 'build the benchmark again even if runs/<id>/benchmark is complete')
    .addHelpText(
      'after',
      '\nExamples:\n  $ execretrieval run                                  # curated tasks, every local model, BM25\n' +
        '  $ execretrieval run data/run.example.yaml --seed 7   # the file, with one field overridden\n' +
        '\nExit codes: 0 done; 1 a step failed (the message names it); 2 bad option or run file; 3 no task accepted by the build.',
    )
    .action(async (configFile: string | undefined, _opts: unknown, cmd: Command) => {
      let file: RunConfig = {};
      if (configFile) {
        try {
          file = loadRunConfig(configFile);
        } catch (e) {
          throw new CliError((e as Error).message, EXIT_CODES.usage);
        }
      }
      const opts = settingsOf(cmd, file);
      const runDir = resolveRunDir(opts.id);
      const benchmark = join(runDir, 'benchmark');
      const { buildProgram } = await import('../main.ts');
      const step = async (name: string, args: string[]) => {
        console.error(`\n== ${name}: execretrieval ${args.join(' ')}`);
        try {
          await buildProgram().parseAsync(['node', 'execretrieval', ...args]);
        } catch (e) {
          throw new CliError(`run stopped at ${name}: ${(e as Error).message}`, e instanceof CliError || e instanceof StopError ? e.exitCode : 1);
        }
        if (process.exitCode) throw new CliError(`run stopped at ${name} (exit ${process.exitCode})`, Number(process.exitCode));
      };
      const queries = join(benchmark, 'queries.jsonl');
      const built = benchmarkCompleteness(benchmark);
      if (!opts.rebuild && !built.complete && existsSync(benchmark)) console.error(`== build: ${benchmark} is incomplete (${built.reason}): building it again`);
      if (opts.rebuild || !built.complete) {
        await step('build', [
          'build', '--source', opts.source, '--out', benchmark, '--seed', String(opts.seed),
          ...(opts.profile ? ['--profile', opts.profile] : []), ...(opts.cap ? ['--cap', String(opts.cap)] : []),
        ]);
      } else {
        console.error(`== build: ${benchmark} exists (use --rebuild to build again)`);
      }
      // Never embed an empty benchmark (an earlier build that accepted nothing still wrote its files).
      if (!readFileSync(queries, 'utf8').trim()) {
        throw new CliError(`run: ${queries} has no queries (the build accepted no task; see ${join(benchmark, 'report.json')}); fix the source and run again with --rebuild`, EXIT_CODES.no_task_accepted);
      }
      await step('embed', ['embed', runDir, ...(opts.configs ? ['--configs', opts.configs.join(',')] : [])]);
      // The BM25 baseline is always scored; append it only when the user did not list it already.
      const scoreConfigs = opts.configs ? [...opts.configs] : undefined;
      if (scoreConfigs && !scoreConfigs.includes(BM25_CONFIG_ID)) scoreConfigs.push(BM25_CONFIG_ID);
      await step('score', [
        'score', runDir, '--seed', String(opts.seed),
        ...(scoreConfigs ? ['--configs', scoreConfigs.join(',')] : []),
        ...(opts.replicates ? ['--replicates', String(opts.replicates)] : []),
        ...(opts.timeout_s ? ['--timeout', String(opts.timeout_s)] : []),
      ]);
    });
}
