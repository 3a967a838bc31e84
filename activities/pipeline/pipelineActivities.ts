/**
 * The activities of `runPipeline` (workflows/runPipeline.ts). They wrap the functions `build` and `score` always
 * ran — buildBenchmark, scoreRun, writeReport — unchanged; what changes is where their executions run: each
 * stage attempt answers from the execution cache and hands its misses back (deferredExec.ts), and
 * `pipelineExecuteBatch` runs them on the exec queue.
 *
 * exec queue:  pipelineSandboxLayers, pipelineExecuteBatch (requests in its input, verdicts in its result: an exec
 *              worker reads and writes no run file; its own execution cache only saves it work)
 * coordinator: the process that owns runs/<id>/ and the authoritative execution cache (the CLI's worker, on a queue
 *              of the run's own; or the default queue): pipelineBuildState, pipelineBuildAttempt (imports,
 *              enumerates mutants, gates: Python), pipelineScoreAttempt (ranking, scoring, statistics, report),
 *              pipelineExchange (stores a batch's verdicts, answering the suspended attempt's calls for them, reads
 *              the next batch's requests), pipelineHarvest (the attempt's misses asked since), pipelineReport,
 *              pipelineRecord. Every attempt runs here, so each continues the previous one (deferredExec.ts).
 */
import { resolve, join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { benchmarkCompleteness } from '../benchmark/complete.ts';
import { buildBenchmark, rejectionsByStage } from '../benchmark/build.ts';
import { runGate } from '../gate/gate.ts';
import { faultStrict } from '../exec/faultStrict.ts';
import type { Oracle, SandboxLayers } from '../exec/types.ts';
import { scoreRun } from '../scoring/scoreRun.ts';
import { headlineText } from '../../core/report/headline.ts';
import { writeReport } from '../scoring/writeReport.ts';
import { scoringDir } from '../scoring/scoringFiles.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { toTemporalFailure, withHeartbeat } from '../generation/temporalErrors.ts';
import { answerStream, attemptWithDeferredExec, harvestStream, type AttemptOutcome, type PendingExec } from './deferredExec.ts';
import { hashFiles, readPendingSlice, runManifestPath, writePending, type PendingFile } from './stageFiles.ts';
import { ExecCache, execContentKey, execRunKey } from '../exec/cache.ts';
import { defaultCachePath } from '../exec/oracle.ts';
import { runnerVersion } from '../exec/pool.ts';

/** Which earlier attempt this one continues: the hash of the misses it handed back, which the exec queue has since run. */
export interface AttemptAfter {
  after?: string;
  /** Requests per exec batch (the workflow's setting): the pending file is cut into batches of this many, and of at most BATCH_MAX_BYTES. */
  batchSize?: number;
}

/** An attempt's stage identity: its input without `after` (the same for every attempt of one stage of one run). */
const identityOf = ({ after: _a, ...rest }: AttemptAfter & Record<string, unknown>) => JSON.stringify(rest);

export interface BuildStageInput extends AttemptAfter {
  runDir: string;
  source: string;
  out: string;
  seed: number;
  profile?: string;
  cap?: number;
  layers: SandboxLayers;
}

export interface BuildStageOutput {
  out: string;
  counts: Record<string, number>;
  /** Every release file with its sha256 (the build manifest's own list, plus the manifest). */
  files: Record<string, string>;
  /** `stage: n (codes)` for each stage that rejected something: what the CLI prints when nothing was accepted. */
  rejections: string;
}

export interface ScoreStageInput extends AttemptAfter {
  runDir: string;
  configs?: string[];
  /** Extra embedding-registry files (`--config-file`), absolute; absent when none was given. */
  configFiles?: string[];
  replicates?: number;
  seed: number;
  timeout_s?: number;
  layers: SandboxLayers;
}

export interface ScoreStageOutput {
  configs: string[];
  failed_configs: { config_id: string; error: string }[];
  missing_configs: string[];
  rejected_records: number;
  executions: { pairs: number; cached: number; not_defined: number };
  files: Record<string, string>;
  report: { md: string; html: string };
  /** The report's headline as text (core/report/headline.ts), which `run` prints before the report's path. */
  headline?: string;
}

/**
 * `resumed`: the attempt continued the previous one where it was (same worker), not from the start. `stream`: the
 * attempt is kept suspended on the coordinator, and its rounds can be pipelined (pipelineExchange answers it,
 * pipelineHarvest hands out its new misses) until the next attempt.
 */
export type StageAttempt<T> = ({ done: true; output: T } | { done: false; pending: PendingFile; stream?: string }) & { resumed?: boolean };

/** What a harvest found: the stage's new misses (null: none yet), that it ended, or that this coordinator does not hold it. */
export type HarvestResult = { lost: true } | { settled: true } | { pending: PendingFile | null };

export interface ExecBatchInput {
  /** Who pays (the run directory, as the coordinator names it): recorded with each execution in the worker's cache. */
  paidBy: string;
  requests: PendingExec[];
}

/** One request's verdict as a batch reports it: enough for the coordinator to store it under the same key. */
export interface ReportedVerdict {
  content_key: string;
  timeout_s: number;
  runner_version: string;
  outcomes: string[];
  wall_ms: number;
  cpu_ms?: number;
  /** How each outcome was judged (ExecResult.judged): gate profiles count parent-judged passes from it. */
  judged?: ('parent' | 'child')[];
  /** Executed for this batch (false: the worker's own cache had it). */
  ran: boolean;
}

export interface ExecBatchResult {
  run: number;
  cached: number;
  verdicts: ReportedVerdict[];
}

/** What the coordinator does between two batches of one lane: store the verdicts just returned, read the next requests. */
export interface ExchangeInput {
  runDir: string;
  store?: ReportedVerdict[];
  read?: { file: string; start: number; end: number };
  /** The suspended attempt (StageAttempt.stream) whose held calls the stored verdicts answer right away. */
  stream?: string;
}

export interface PipelineActivityDeps {
  /** The worker's execution oracle (sandbox pool + cache), opened on first use. */
  oracle: () => Promise<Oracle>;
  log?: (msg: string) => void;
}

const DEFAULT_REPLICATES = 5000;
const ALPHA = 0.05;

async function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await withHeartbeat(fn);
  } catch (err) {
    throw toTemporalFailure(err);
  }
}

const streamOf = (got: AttemptOutcome<unknown>) => (!got.done && got.stream ? { stream: got.stream } : {});

function buildOutput(out: string, rejections: string): BuildStageOutput {
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { counts: Record<string, number>; files: Record<string, string> };
  return { out, counts: manifest.counts, files: { ...manifest.files, 'manifest.json': hashFiles([join(out, 'manifest.json')])[join(out, 'manifest.json')] }, rejections };
}

/** Activities that need the sandbox and Python: they go on the exec queue. */
export function createPipelineExecActivities(deps: PipelineActivityDeps) {
  // This worker's own cache, where its oracle records what it ran and for whom (see pipelineExecuteBatch).
  let local: ExecCache | null = null;
  const localCache = () => (local ??= new ExecCache(defaultCachePath()));
  return {
    /** The layers the batches run under (recorded in the build and scoring manifests, as in-process runs do). */
    async pipelineSandboxLayers(): Promise<SandboxLayers> {
      return asActivity(async () => {
        const oracle = await deps.oracle();
        return oracle.layers ? oracle.layers() : {};
      });
    },

    /**
     * Runs a batch's requests (its input) through the sandbox and returns their verdicts; the worker's own cache
     * keeps them too (it may serve the next batch), with the payment, in one transaction: a worker that dies
     * mid-batch has recorded exactly the executions whose verdicts it stored.
     */
    async pipelineExecuteBatch(input: ExecBatchInput): Promise<ExecBatchResult> {
      return asActivity(async () => {
        const oracle = faultStrict(await deps.oracle());
        const version = runnerVersion();
        const results = await Promise.all(input.requests.map((r) => oracle.run({ ...r, paid_by: input.paidBy })));
        const verdicts = results.map((res, i): ReportedVerdict => {
          const r = input.requests[i];
          const content_key = execContentKey(version, r.code, r.suite);
          // A hit in this worker's cache that this run paid for here is still this run's execution: an earlier
          // attempt of this very batch (timed out under load, its result discarded) ran it and stored it. Reported
          // as run, the coordinator records its one payment, unless it already holds the verdict.
          const ran = !res.cached || localCache().paidHere(execRunKey(content_key, r.timeout_s), input.paidBy);
          return {
            content_key, timeout_s: r.timeout_s, runner_version: version,
            outcomes: res.outcomes, wall_ms: res.wall_ms, ...(res.cpu_ms === undefined ? {} : { cpu_ms: res.cpu_ms }), ...(res.judged ? { judged: res.judged } : {}), ran,
          };
        });
        const run = verdicts.filter((v) => v.ran).length;
        return { run, cached: verdicts.length - run, verdicts };
      });
    },
  };
}

/**
 * Activities that read and write the run's files and the authoritative execution cache: the coordinator (the
 * CLI's worker on the run's own queue, or the default queue). `cachePath`: that cache (default: the state
 * directory's), which the attempts' lookups read and pipelineExchange fills.
 */
export function createPipelineCoordinator(opts: { cachePath?: string } = {}) {
  let cache: ExecCache | null = null;
  const authoritative = () => (cache ??= new ExecCache(opts.cachePath ?? defaultCachePath()));
  const close = () => {
    cache?.close();
    cache = null;
  };
  const activities = {
    async pipelineBuildAttempt(input: BuildStageInput): Promise<StageAttempt<BuildStageOutput>> {
      return asActivity(async () => {
        const got = await attemptWithDeferredExec(
          (oracle) => buildBenchmark({ source: input.source, out: resolve(input.out), seed: input.seed, profile: input.profile, cap: input.cap, oracle, gate: runGate }),
          { layers: input.layers, ...(opts.cachePath ? { cachePath: opts.cachePath } : {}) },
          { identity: identityOf({ stage: 'build', ...input }), after: input.after },
        );
        const resumed = got.resumed ? { resumed: true } : {};
        if (!got.done) return { done: false, pending: writePending(input.runDir, 'build', got.pending, input.batchSize), ...streamOf(got), ...resumed };
        return { done: true, output: buildOutput(resolve(input.out), rejectionsByStage(got.value.report.rejections)), ...resumed };
      });
    },


    /**
     * Stores the verdicts a batch returned in the authoritative cache, and reads the next batch's requests (one
     * activity between two batches of a lane). A verdict the cache already answers is left alone: the worker
     * wrote it into this very file (one machine), or a retry of this activity already stored it; otherwise it is
     * stored with its payment when the worker ran it (the worker's own cache, elsewhere, has its payment too).
     */
    async pipelineExchange(input: ExchangeInput): Promise<{ requests: PendingExec[] }> {
      return asActivity(async () => {
        if (input.store?.length) {
          const c = authoritative();
          for (const v of input.store) {
            if (c.get(v.content_key, v.timeout_s)) continue;
            c.put(v.content_key, v.timeout_s, v.runner_version, { outcomes: v.outcomes, wall_ms: v.wall_ms, ...(v.cpu_ms === undefined ? {} : { cpu_ms: v.cpu_ms }), ...(v.judged ? { judged: v.judged } : {}) }, v.ran ? input.runDir : undefined);
          }
          if (input.stream) await answerStream(input.stream, input.store.map((v) => execRunKey(v.content_key, v.timeout_s)));
        }
        return { requests: input.read ? readPendingSlice(input.read.file, input.read.start, input.read.end) : [] };
      });
    },

    /**
     * The misses a suspended attempt asked for since its last hand-out (pipelined rounds: while other batches still
     * run), written as a pending file of their own and cut into batches; null when none yet.
     */
    async pipelineHarvest(input: { runDir: string; stage: string; stream: string; batchSize?: number }): Promise<HarvestResult> {
      return asActivity(async () => {
        const got = await harvestStream(input.stream);
        if (!('pending' in got)) return got;
        return { pending: got.pending.length ? writePending(input.runDir, input.stage, got.pending, input.batchSize) : null };
      });
    },

    /** Whether runs/<id>/benchmark is complete (its manifest lists every file with the right hash). */
    async pipelineBuildState(input: { out: string }): Promise<{ complete: true; output: BuildStageOutput } | { complete: false; exists: boolean; reason: string }> {
      return asActivity(async () => {
        const c = benchmarkCompleteness(input.out);
        if (!c.complete) return { complete: false, exists: existsSync(input.out), reason: c.reason };
        return { complete: true, output: buildOutput(input.out, '') };
      });
    },

    async pipelineScoreAttempt(input: ScoreStageInput): Promise<StageAttempt<ScoreStageOutput>> {
      return asActivity(async () => {
        const got = await attemptWithDeferredExec(
          (oracle) => scoreRun({ runDir: input.runDir, oracle, configs: input.configs, replicates: input.replicates ?? DEFAULT_REPLICATES, seed: input.seed, configFiles: input.configFiles }),
          { layers: input.layers, timeoutS: input.timeout_s, ...(opts.cachePath ? { cachePath: opts.cachePath } : {}) },
          { identity: identityOf({ stage: 'score', ...input }), after: input.after },
        );
        const resumed = got.resumed ? { resumed: true } : {};
        if (!got.done) return { done: false, pending: writePending(input.runDir, 'score', got.pending, input.batchSize), ...streamOf(got), ...resumed };
        const { manifest, report } = got.value;
        return {
          ...resumed,
          done: true,
          output: {
            configs: manifest.configs,
            failed_configs: manifest.failed_configs,
            missing_configs: manifest.missing_configs,
            rejected_records: manifest.rejections.length,
            executions: { pairs: manifest.executions.pairs, cached: manifest.executions.cached, not_defined: manifest.executions.not_defined },
            files: hashFiles([join(scoringDir(input.runDir), 'manifest.json'), ...report.files]),
            report: { md: join(report.dir, 'report.md'), html: join(report.dir, 'report.html') },
            headline: headlineText(report.stats),
          },
        };
      });
    },

    /** `run --from report`: the report again from what scoring stored (no ranking, no execution). */
    async pipelineReport(input: { runDir: string; replicates?: number; seed: number }): Promise<Record<string, string>> {
      return asActivity(async () => {
        const report = await writeReport(input.runDir, { replicates: input.replicates ?? DEFAULT_REPLICATES, seed: input.seed, alpha: ALPHA });
        return hashFiles(report.files);
      });
    },

    async pipelineRecord(input: { runDir: string; manifest: unknown }): Promise<void> {
      return asActivity(async () => writeJsonAtomic(runManifestPath(input.runDir), input.manifest));
    },
  };
  return { activities, close };
}

export const createPipelineDefaultActivities = (opts: { cachePath?: string } = {}) => createPipelineCoordinator(opts).activities;

export type PipelineExecActivities = ReturnType<typeof createPipelineExecActivities>;
export type PipelineDefaultActivities = ReturnType<typeof createPipelineDefaultActivities>;
