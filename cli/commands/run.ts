import { Option, type Command } from 'commander';
import { isAbsolute, join, resolve } from 'node:path';
import { resolveRunDir } from '../../activities/paths.ts';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { DEFAULT_SEED, type RunConfig } from '../../schemas/runConfig.ts';
import { loadRunConfig } from '../../activities/runConfigFile.ts';
import { PIPELINE_STAGES, PIPELINE_STOPS, type PipelineStart, type PipelineStop } from '../../workflows/runPipeline.ts';
import { addRunOption, checkConfigIds, checkProfile, checkSource, durationOption, givenRun, parseTimeout, sourceForLanguage } from '../options.ts';

/**
 * The main job end to end, as one durable workflow (workflows/runPipeline.ts): build a benchmark (mechanical
 * distractors, five gates) → embed it under every configuration that can run here → rank, execute the top 10
 * and score → report. The same functions as the `build`, `embed` and `score` subcommands; a rerun of the same
 * command continues the same workflow, and re-executes and re-embeds nothing that is cached.
 */
/** What `run` does after merging flags over the file over the defaults. */
export interface RunSettings {
  id: string;
  source: string;
  profile?: string;
  cap?: number;
  seed: number;
  configs?: string[];
  /** Extra embedding-registry files, absolute (workers may run in another directory). */
  configFiles?: string[];
  replicates?: number;
  timeout_s?: number;
  rebuild: boolean;
  batchesInFlight?: number;
  batch?: boolean;
  retryDeadlineMs?: number;
}

const DEFAULTS = { id: 'default', source: 'curated', seed: DEFAULT_SEED, rebuild: false } as const;

/** Flags given on the command line win over the file, the file over the defaults. */
function settingsOf(cmd: Command, file: RunConfig): RunSettings {
  const given = <T>(name: string, value: T): T | undefined => (cmd.getOptionValueSource(name) === 'cli' ? value : undefined);
  const o = cmd.opts<{ source?: string; configs?: string; configFile?: string[]; seed?: number; profile?: string; cap?: number; rebuild?: boolean; replicates?: number; timeout?: number; batchesInFlight?: number; batch?: boolean; retryDeadline?: number }>();
  const configs = given('configs', o.configs)?.split(',').map((s) => s.trim()).filter(Boolean) ?? file.configs;
  const configFiles = given('configFile', o.configFile) ?? file.config_files;
  return {
    id: givenRun(cmd.opts()) ?? file.id ?? DEFAULTS.id,
    source: given('source', o.source) ?? file.source ?? DEFAULTS.source,
    profile: given('profile', o.profile) ?? file.profile,
    cap: given('cap', o.cap) ?? file.cap,
    seed: given('seed', o.seed) ?? file.seed ?? DEFAULTS.seed,
    configs: configs?.length ? configs : undefined,
    configFiles: configFiles?.length ? configFiles.map((f) => resolve(f)) : undefined,
    replicates: given('replicates', o.replicates) ?? file.replicates,
    timeout_s: given('timeout', o.timeout) ?? file.timeout_s,
    rebuild: given('rebuild', o.rebuild) ?? file.rebuild ?? DEFAULTS.rebuild,
    batchesInFlight: given('batchesInFlight', o.batchesInFlight) ?? file.batches_in_flight,
    batch: given('batch', o.batch) ?? file.batch,
    retryDeadlineMs: o.retryDeadline,
  };
}

const intOption = (flag: string, min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag}: expected an integer >= ${min}, got '${v}'`, EXIT_CODES.usage);
  return n;
};

export function registerRun(program: Command): void {
  const cmd = program
    .command('run')
    .description('Build → embed → score → report in one go (each step is also its own subcommand)')
    .argument('[config]', 'a run configuration file (YAML, every field documented in data/run.example.yaml); flags override it')
    .option('--source <source>', `mbpp | curated | tasks .jsonl | release directory (default: ${DEFAULTS.source})`)
    .option('--language <ids>', 'with --source curated: the curated set of each language (python, javascript, typescript, go; comma-separated for a mixed run, reported per language and pooled)');
  addRunOption(cmd, `run id: outputs in runs/<id>/ (default: ${DEFAULTS.id})`)
    .option('--configs <ids>', 'embedding configurations (default: every one that can run here); BM25 is always scored')
    .option('--config-file <file...>', 'extra embedding-registry files (your own configurations), merged after ours')
    .option('--seed <n>', `seed for mutant order, bootstrap and the ranking tie order (default: ${DEFAULT_SEED})`, intOption('--seed', 0))
    .option('--profile <name>', 'gate profile for build (default, check, mbpp, canonical; default: mbpp for MBPP, default otherwise)')
    .option('--cap <n>', 'build: most candidates verified per task', intOption('--cap', 1))
    .option('--replicates <n>', 'score: bootstrap replicates (default 5000)', intOption('--replicates', 1))
    .option('--timeout <seconds>', 'score: per-suite execution timeout (default 5)', parseTimeout)
    .option('--rebuild', 'build the benchmark again even if runs/<id>/benchmark is complete')
    .addOption(new Option('--from <stage>', 'rerun this stage and the ones after it (the ones before must be done): build, embed, score, report').choices([...PIPELINE_STAGES]))
    .addOption(new Option('--until <stage>', 'stop after this stage: build (the benchmark only), embed, score').choices([...PIPELINE_STOPS]))
    .option('--no-worker', 'run no worker in this process (workers elsewhere serve the queues: needs TEMPORAL_ADDRESS); it still owns runs/<id>/ and the execution cache')
    .option('--batches-in-flight <n>', 'exec batches at once (default 256: every worker serving the exec queue stays busy)', intOption('--batches-in-flight', 1))
    .option('--batch', "embed: hosted OpenAI configurations through OpenAI's Batch API (half price, minutes to 24 h; docs/batch.md)")
    .option('--retry-deadline <duration>', 'embed: longest a hosted configuration keeps retrying a failing service, waits included, before it fails (e.g. 30s, 10m)', durationOption('--retry-deadline'))
    .option('--json', 'print the run manifest (settings, each stage\'s outputs with content hashes and counts) as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  $ execretrieval run                                  # curated tasks, every local model, BM25: runs/default/\n' +
        '  $ execretrieval run data/run.example.yaml --seed 7   # the file, with one field overridden\n' +
        '  $ execretrieval run --from score                     # rank, execute and score again (the benchmark and embeddings as they are)\n' +
        '  $ execretrieval run --run mbpp --source mbpp --until build   # the benchmark only (what `build` runs)\n' +
        '\nThe run is one Temporal workflow (runPipeline); the same command again continues it where it stopped.' +
        '\nExit codes: 0 done; 1 a step failed (the message names it); 2 bad option or run file; 3 no task accepted by the build; 5 infrastructure (Temporal server lost, sandbox or cache fault): rerun the same command.',
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
      opts.source = await sourceForLanguage(opts.source, cmd.opts<{ language?: string }>().language);
      // Every name is checked before the pipeline starts (a bad one used to surface after the whole build).
      await checkConfigIds(opts.configs, opts.configFiles);
      await checkProfile(opts.profile);
      await checkSource(opts.source);
      const o = cmd.opts<{ from?: PipelineStart; until?: PipelineStop; json?: boolean; worker: boolean }>();
      // Checked before Temporal starts (it used to take the dev server's start-up to say so).
      if (o.from && o.until && PIPELINE_STAGES.indexOf(o.from) > PIPELINE_STAGES.indexOf(o.until)) {
        throw new CliError(`--from ${o.from} --until ${o.until}: ${o.from} comes after ${o.until}, so nothing would run`, EXIT_CODES.usage);
      }
      // A relative run that climbs out (`../x`) would build outside runs/ (an absolute directory is explicit).
      if (!isAbsolute(opts.id) && opts.id.split(/[\\/]/).includes('..')) {
        throw new CliError(`--run ${opts.id}: a run id may not contain '..' (give a name under runs/, or an absolute directory)`, EXIT_CODES.usage);
      }
      const runDir = resolveRunDir(opts.id);
      // A damaged cache stops the run now, not when the score stage first opens it (after build and embed).
      const { checkCachesOnStart } = await import('../rebuildCache.ts');
      await checkCachesOnStart();
      // Imported when the command runs, not when it is registered: `--help` and usage errors need none of it.
      const { runPipelineFromCli } = await import('../pipelineRun.ts');
      const result = await runPipelineFromCli({ ...opts, runDir, from: o.from, until: o.until, worker: o.worker });
      const score = result.score;
      if (score && (score.failed_configs.length || score.missing_configs.length || score.rejected_records)) process.exitCode = EXIT_CODES.failed;
      // Records the build rejected: exit 1, as `build` does (the rest was still built and scored).
      const built = (result.stages.build?.output as { counts?: Record<string, number> } | undefined)?.counts;
      const rejected = built ? built.import_rejected + built.precheck_rejected + built.mutation_rejected + built.gate_rejected : 0;
      if (rejected > 0) {
        process.exitCode = EXIT_CODES.failed;
        console.error(`warning: build rejected ${rejected} of ${built!.input_records} records (reasons: ${join(runDir, 'benchmark', 'report.json')})`);
      }
      if (o.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      if (o.until === 'build' || o.until === 'embed') {
        console.log(`${o.until} done: ${join(runDir, o.until === 'build' ? 'benchmark' : 'embeddings')} (the stage's outputs and hashes: ${join(runDir, 'manifest.json')})`);
      } else if (score) {
        console.log(`scored ${score.configs.length} configurations (${score.executions.pairs} (query, snippet) pairs: ${score.executions.not_defined} not_defined without running, ${score.executions.cached} cached)`);
        if (score.failed_configs.length) console.log(`failed: ${score.failed_configs.map((f) => f.config_id).join(', ')}`);
        // The answer before the path to it (the report opens with the same table).
        if (score.headline) console.log(`\n${score.headline}\n`);
        console.log(`report: ${score.report.md}, ${score.report.html}`);
      } else {
        console.log(`report: ${join(runDir, 'report')}`);
      }
    });
}
