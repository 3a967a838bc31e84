/**
 * runPipeline: `execretrieval run` as one durable workflow.
 *
 *   build   (exec queue)  buildBenchmark, skipped when runs/<id>/benchmark is complete (unless --from build)
 *   embed   (child)       embedSweep over the benchmark
 *   rank    (default)     scoreRun's first attempt: rankings written, the top-k executions it needs handed back
 *   execute (exec queue)  those executions in batches, on whichever workers serve the queue
 *   score   (default)     scoreRun over the now warm cache: per-query metrics, statistics, the report
 *   report  (default)     only with --from report: the report again from what scoring stored
 *
 * `until` stops after a stage: `execretrieval build` and `generate benchmark --generator mechanical` are this
 * workflow with `until: 'build'` (one implementation of the build: its rounds' executions on the exec queue).
 *
 * Build's mutant rounds go the same way: each attempt hands back the round it cannot answer, the batches run on
 * the exec queue, and the verdicts they store answer the suspended attempt at once, whose new misses are handed
 * out while the other batches still run (pipelined rounds: runBatches); the next attempt comes only when nothing
 * is left to run (activities/pipeline/deferredExec.ts). After each
 * stage the run manifest (runs/<id>/manifest.json) records its outputs: paths, content hashes, counts. A killed
 * worker's activity is retried on another within its heartbeat timeout; a killed CLI or server leaves the
 * workflow in the server's database, and the same command attaches to it (same workflow id).
 */
import { ApplicationFailure, ContinueAsNew, condition, continueAsNew, defineQuery, executeChild, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PipelineDefaultActivities, PipelineExecActivities, BuildStageOutput, ScoreStageOutput, StageAttempt } from '../activities/pipeline/pipelineActivities.ts';
import type { PendingBatch, PendingFile } from '../activities/pipeline/stageFiles.ts';
import type { ReportedVerdict } from '../activities/pipeline/pipelineActivities.ts';
import type { SandboxLayers } from '../activities/exec/types.ts';
import { activityOptions, type TaskQueues } from '../temporal.config.ts';
import { embedSweep, type EmbedSweepResult } from './embedSweep.ts';
import { SWEEP_SEND_RETRY } from './embedChunk.ts';

export const PIPELINE_STAGES = ['build', 'embed', 'score', 'report'] as const;
export type PipelineStart = (typeof PIPELINE_STAGES)[number];
export const PIPELINE_STOPS = ['build', 'embed', 'score'] as const;
export type PipelineStop = (typeof PIPELINE_STOPS)[number];

export interface RunPipelineInput {
  queues: TaskQueues;
  runId: string;
  runDir: string;
  source: string;
  seed: number;
  profile?: string;
  cap?: number;
  /** Embedding configurations (null: every one that can run here); BM25 is always scored. */
  configs: string[] | null;
  /**
   * Extra embedding-registry files (`--config-file`, run file `config_files`), absolute paths, for the embed and
   * score stages. Absent when none was given, so the workflow id of a run without them stays what it was.
   */
  configFiles?: string[];
  replicates?: number;
  timeout_s?: number;
  /** First stage to (re)run; the ones before it must have their outputs (default: build, skipped when complete). */
  from?: PipelineStart;
  /** Last stage to run (`--until`; default: every stage). `build` alone is what `execretrieval build` and `generate benchmark --generator mechanical` run. */
  until?: PipelineStop;
  /** Build even when the benchmark is complete (`--rebuild`; `--from build` implies it). */
  rebuild?: boolean;
  /** Requests per exec batch (default 24; a batch is also at most 512 KB: stageFiles.ts). */
  batchSize?: number;
  /**
   * Exec batches in flight at once (`--batches-in-flight`, run file `batches_in_flight`; default 256): each worker
   * takes at most EXEC_ACTIVITY_SLOTS (2 per core) at a time, and the rest wait on the queue for whichever worker
   * frees a slot first. IN_FLIGHT_BYTES bounds them too, and binds first (~60–90 batches of 24).
   */
  batchesInFlight?: number;
  /** embed: hosted OpenAI configurations through OpenAI's Batch API (same vectors, half the price; docs/batch.md). */
  batch?: boolean;
  /** embed: `--retry-deadline`, the longest a hosted configuration retries a failing service (RetryTiming.maxRetryMs). */
  retryDeadlineMs?: number;
  /**
   * The queue of the process that owns runDir and the authoritative execution cache (the coordinator: the CLI's
   * own worker, with or without --no-worker); default: the default queue.
   */
  coordinatorQueue?: string;
  /** Continue as new once the history reaches this many events or bytes (default HISTORY_BOUND; tests set it low). */
  historyBound?: { events: number; bytes: number };
  /** What an earlier run of this workflow hands on when it continued as new (never set by a caller). */
  carry?: PipelineCarry;
}

/**
 * What a run hands on when it continues as new: the stages done, the terminal's lines, and where the stage in
 * progress was: hashes and counters, and the byte ranges of the batches not yet taken (by pending file) — never
 * a list of executions or verdicts (those are in the coordinator's files and cache).
 */
export interface PipelineCarry {
  stages: Record<string, StageRecord>;
  notes: string[];
  layers: SandboxLayers | null;
  rounds: RoundState | null;
  /** Runs of this workflow before this one. */
  continued: number;
}

interface RoundState {
  stage: string;
  /** Attempts so far: each one waited for every batch handed out before it (a barrier). */
  round: number;
  /** The last round's pending hash (`after`), and every round's (the livelock guard). */
  previous: string;
  seen: string[];
  resumed: number;
  executions: { requested: number; run: number; cached: number };
  /** Batches handed out and not yet taken, by pending file; null between rounds (the next step is an attempt). */
  queue: { file: string; batches: PendingBatch[] }[] | null;
  /** The suspended attempt's token, when the coordinator keeps it (pipelined rounds: StageAttempt.stream). */
  stream: string | null;
  /** Harvests (pipelineHarvest) that handed out new misses between two attempts. */
  harvests: number;
}

/**
 * When a run continues as new (Temporal's limits: 51,200 events, 50 MB): once the history, with what the batches
 * in flight will still add, would pass 10,000 events or 8 MB, or when the server suggests it. A lane takes a batch
 * only if the history can hold it, so the bound is a ceiling (measured: docs/scale-out-2026-12-02.md), not the
 * point where lanes stop while 256 batches in flight still land (up to 3,000 events and, at 512 KB a batch, far
 * past 50 MB).
 */
export const HISTORY_BOUND = { events: 10_000, bytes: 8 * 1024 * 1024 };

/**
 * Request and verdict bytes in flight at once. Every batch's requests cross the workflow twice (the exchange's
 * result, the batch's input) and its verdicts too (the batch's result, the next exchange's input), and one
 * workflow task may receive or schedule all of those in flight: past gRPC's 4 MB message limit the task fails
 * with GrpcMessageTooLarge and the server terminates the run (a 10,000-task build did, at 256 batches of ~25 KB
 * in flight). A batch larger than this still goes, alone.
 */
export const IN_FLIGHT_BYTES = 2 * 1024 * 1024;
/** What one batch adds to the history besides its bytes: the exchange and the batch, each scheduled, started and completed, with their workflow tasks. */
const EVENTS_PER_BATCH = 12;
/** A verdict's bytes as a batch returns it (key, outcomes, judges, times), rounded up: what the requests' byte range does not count. */
const VERDICT_BYTES = 512;

/** Settings that change how a run is carried out, not what it computes: left out of its workflow id. */
// `batch` too: the same vectors at another price, so a run started in real time is attached to, not run twice.
export const EXECUTION_SETTINGS = ['batchSize', 'batchesInFlight', 'coordinatorQueue', 'historyBound', 'carry', 'batch', 'retryDeadlineMs'] as const;
export const DEFAULT_BATCHES_IN_FLIGHT = 256;
/** More rounds than any stage has needed (MBPP's build: 21 before rounds were pipelined): beyond it, a stage that never stops asking is stopped. */
export const MAX_ROUNDS = 100;

export interface StageRecord {
  status: 'done' | 'skipped';
  /** Attempts of a stage whose executions went to the exec queue, and what its batches ran. */
  rounds?: number;
  /** Of those attempts, how many continued the previous one where it was (same worker) instead of starting over. */
  resumed?: number;
  /** Pipelined hand-outs between attempts: misses sent to the exec queue while its batches still ran (no barrier). */
  harvests?: number;
  executions?: { requested: number; run: number; cached: number };
  output?: unknown;
  note?: string;
}

export interface RunPipelineResult {
  run_id: string;
  workflow_id: string;
  settings: Omit<RunPipelineInput, 'queues'>;
  stages: Record<string, StageRecord>;
  score: ScoreStageOutput | null;
  /** Runs of this workflow before the one that finished (each continued as new to keep the history short). */
  continued_as_new: number;
}

export interface PipelineProgress {
  stage: string;
  round: number;
  batches_done: number;
  batches_total: number;
  /** Lines for the terminal, in order (the CLI prints the ones it has not printed yet). */
  notes: string[];
}

export const pipelineProgressQuery = defineQuery<PipelineProgress>('pipelineProgress');

const BM25 = 'bm25';

export async function runPipeline(input: RunPipelineInput): Promise<RunPipelineResult> {
  if (!input.runDir || !input.source) throw ApplicationFailure.nonRetryable('runPipeline: runDir and source are required', 'InvalidInputError');
  const from = input.from ?? 'build';
  if (!PIPELINE_STAGES.includes(from)) throw ApplicationFailure.nonRetryable(`runPipeline: unknown stage "${from}" (known: ${PIPELINE_STAGES.join(', ')})`, 'InvalidInputError');
  if (input.until !== undefined && (!PIPELINE_STOPS.includes(input.until) || PIPELINE_STAGES.indexOf(input.until) < PIPELINE_STAGES.indexOf(from))) {
    throw ApplicationFailure.nonRetryable(`runPipeline: --until ${input.until} with --from ${from}: the last stage must be one of ${PIPELINE_STOPS.join(', ')}, not before the first`, 'InvalidInputError');
  }
  const exec = proxyActivities<PipelineExecActivities>(activityOptions('exec', input.queues));
  // Scoring and the report run bootstrap statistics over every configuration: minutes on MBPP, so a longer bound than the default class, and a heartbeat to notice a dead worker.
  // Every activity that touches runDir or the authoritative cache goes to the coordinator, the one process that owns them.
  const local = proxyActivities<PipelineDefaultActivities>(activityOptions('default', input.queues, {
    startToCloseTimeout: '60 minutes', heartbeatTimeout: '30 seconds', ...(input.coordinatorQueue ? { taskQueue: input.coordinatorQueue } : {}),
  }));
  const carry: PipelineCarry = input.carry ?? { stages: {}, notes: [], layers: null, rounds: null, continued: 0 };
  const progress: PipelineProgress = { stage: 'start', round: 0, batches_done: 0, batches_total: 0, notes: carry.notes };
  setHandler(pipelineProgressQuery, () => progress);

  const { queues: _q, coordinatorQueue: _c, carry: _carry, historyBound: _h, ...settings } = input;
  const result: RunPipelineResult = { run_id: input.runId, workflow_id: workflowInfo().workflowId, settings, stages: carry.stages, score: null, continued_as_new: carry.continued };
  const bound = input.historyBound ?? HISTORY_BOUND;
  const historyFull = () => {
    const i = workflowInfo();
    return i.continueAsNewSuggested || i.historyLength >= bound.events || i.historySize >= bound.bytes;
  };
  /** Continues as new with what the next run needs (throws ContinueAsNew, which every wrapper lets through). */
  const continueNow = () => continueAsNew<typeof runPipeline>({ ...input, carry: { ...carry, layers, continued: carry.continued + 1 } });
  const record = async (stage: string, r: StageRecord) => {
    result.stages[stage] = r;
    await local.pipelineRecord({ runDir: input.runDir, manifest: result });
  };
  const order = PIPELINE_STAGES.indexOf(from);
  const benchmark = `${input.runDir}/benchmark`;
  const batchSize = Math.max(1, input.batchSize ?? 24);
  const inFlight = Math.max(1, input.batchesInFlight ?? DEFAULT_BATCHES_IN_FLIGHT);

  /**
   * The handed-out requests in batches on the exec queue, many in flight (every worker serving it takes a share).
   * Requests and verdicts travel through the workflow: a lane asks the coordinator for a batch's requests (a byte
   * range of a pending file, read once), hands them to an exec worker in the activity input, and gives the
   * verdicts back to the coordinator with its next request (or at once when there is none), which stores them in
   * the authoritative cache.
   *
   * Pipelined rounds: when the attempt is kept suspended on the coordinator (`r.stream`), storing verdicts answers
   * its waiting calls at once, so each task's next candidates are asked for as soon as its own verdicts are in;
   * a harvester hands those new misses out as further batches (pipelineHarvest) whenever fewer are queued than
   * are running, so lanes rarely wait for the slowest batch. The stream ends when the stage has ended, when
   * nothing is queued, running or unstored and a harvest after the last store found nothing new (the stage is
   * waiting on something else, or its verdicts do not reach it: the next attempt, a barrier, tells), or when the
   * coordinator no longer holds the attempt (its batches are run, then an attempt starts the stage over the warm
   * cache: no request is handed out twice). Once the history is full, lanes and the harvester take nothing new:
   * false when the stream is not over (the run continues as new with the queue in `r`).
   */
  const runBatches = async (r: RoundState): Promise<boolean> => {
    const q = r.queue!;
    for (let k = q.length - 1; k >= 0; k--) if (!q[k].batches.length) q.splice(k, 1);
    const queued = () => q.reduce((n, f) => n + f.batches.length, 0);
    progress.batches_total = progress.batches_done + queued();
    let full = false;
    // Batches taken and not yet done, and their bytes (requests and verdicts, one way): what will still cross the
    // workflow and land in the history. Nothing in flight: the next batch always goes, so every run makes progress.
    let busy = 0;
    let ahead = 0;
    // Batches taken whose verdicts are not yet stored; stores done; the store count a harvest found nothing new at.
    let unsettled = 0;
    let stores = 0;
    let emptyAt = -1;
    let harvesting = false;
    let streamOver = r.stream === null;
    const head = () => q[0];
    const bytesOf = (b: PendingBatch) => b[1] - b[0] + b[2] * VERDICT_BYTES;
    const fitsInFlight = () => busy === 0 || ahead + bytesOf(head().batches[0]) <= IN_FLIGHT_BYTES;
    const fitsHistory = (bytes: number) => {
      if (busy === 0) return true;
      const i = workflowInfo();
      return !i.continueAsNewSuggested && i.historyLength + (busy + 1) * EVENTS_PER_BATCH < bound.events && i.historySize + 2 * (ahead + bytes) < bound.bytes;
    };
    const canTake = () => queued() > 0 && fitsInFlight();
    const finished = () => queued() === 0 && unsettled === 0 && !harvesting && (streamOver || emptyAt === stores);
    const needHarvest = () => !streamOver && !harvesting && emptyAt !== stores && queued() <= busy;
    const exchange = async (store: ReportedVerdict[], read?: { file: string; start: number; end: number }) => {
      const got = await local.pipelineExchange({ runDir: input.runDir, store, ...(read ? { read } : {}), ...(r.stream && store.length ? { stream: r.stream } : {}) });
      if (store.length) stores++;
      return got;
    };
    const lane = async () => {
      // The verdicts of this lane's last batch, not yet stored (the batch counts as unsettled until they are).
      let verdicts: ReportedVerdict[] = [];
      let owed = false;
      const settle = () => {
        if (owed) unsettled--;
        owed = false;
      };
      for (;;) {
        await condition(() => full || finished() || canTake() || owed);
        if (full || finished()) break;
        if (!canTake()) {
          // Nothing to take with them (another lane may have taken it meanwhile): the verdicts go to the
          // coordinator now, so their tasks go on.
          if (owed) {
            const v = verdicts;
            verdicts = [];
            await exchange(v);
            settle();
          }
          continue;
        }
        const f = head();
        const bytes = bytesOf(f.batches[0]);
        if (!fitsHistory(bytes)) {
          full = true;
          break;
        }
        const [start, end] = f.batches.shift()!;
        // A file whose batches are all taken leaves the queue (what a run that continues as new carries).
        if (!f.batches.length) q.splice(q.indexOf(f), 1);
        busy++;
        ahead += bytes;
        // Unsettled from the moment it is taken, so the stream cannot look over while its requests are read.
        unsettled++;
        const { requests } = await exchange(verdicts, { file: f.file, start, end });
        settle();
        owed = true;
        const got = await exec.pipelineExecuteBatch({ paidBy: input.runDir, requests });
        verdicts = got.verdicts;
        busy--;
        ahead -= bytes;
        r.executions.run += got.run;
        r.executions.cached += got.cached;
        progress.batches_done++;
        full ||= historyFull();
      }
      if (verdicts.length) await exchange(verdicts);
      settle();
    };
    const harvester = async () => {
      for (;;) {
        await condition(() => full || finished() || needHarvest());
        if (full || finished()) return;
        // A full history takes no new hand-out either: the lanes stop too, and the next run harvests.
        if (historyFull()) {
          full = true;
          return;
        }
        const at = stores;
        harvesting = true;
        const h = await local.pipelineHarvest({ runDir: input.runDir, stage: r.stage, stream: r.stream!, batchSize });
        harvesting = false;
        if ('lost' in h || 'settled' in h) streamOver = true;
        else if (h.pending) {
          r.harvests++;
          if (h.pending.batches.length) q.push({ file: h.pending.file, batches: h.pending.batches });
          r.executions.requested += h.pending.count;
          progress.batches_total += h.pending.batches.length;
        } else if (stores === at) emptyAt = at;
      }
    };
    await Promise.all([harvester(), ...Array.from({ length: inFlight }, lane)]);
    // Every lane has stored its verdicts by now: only the queue (and the stream's token) carries over.
    return finished();
  };

  /**
   * Attempt a stage until it meets no cache miss, running each attempt's misses on the exec queue in between
   * (with pipelined rounds, also the misses it meets while they run). Each attempt is a step of this workflow;
   * between two, or between two batches, the run may continue as new, and the next run goes on from the same
   * place (carry.rounds).
   */
  const withExecRounds = async <T>(stage: string, attempt: (after: string | undefined) => Promise<StageAttempt<T>>): Promise<{ output: T; rounds: number; resumed: number; harvests: number; executions: StageRecord['executions'] }> => {
    const r: RoundState = carry.rounds?.stage === stage ? carry.rounds
      : { stage, round: 1, previous: '', seen: [], resumed: 0, executions: { requested: 0, run: 0, cached: 0 }, queue: null, stream: null, harvests: 0 };
    carry.rounds = r;
    for (;; r.round++) {
      progress.stage = stage;
      progress.round = r.round;
      if (!r.queue) {
        // `after`: the misses just run, so the coordinator continues the attempt it kept suspended (deferredExec.ts).
        const got = await attempt(r.previous || undefined);
        if (got.resumed) r.resumed++;
        if (got.done) {
          carry.rounds = null;
          return { output: got.output, rounds: r.round, resumed: r.resumed, harvests: r.harvests, executions: r.executions };
        }
        // Every round's hash, not only the last: a stage that asks again for any round it already had run is not
        // being answered by the cache the exec queue fills, however many rounds lie between (a hash each: no lists).
        if (r.seen.includes(got.pending.sha256) || r.round > MAX_ROUNDS) {
          throw ApplicationFailure.nonRetryable(
            r.seen.includes(got.pending.sha256)
              ? `${stage}: round ${r.round} asked again for the ${got.pending.count} executions of an earlier round after the exec queue ran them: their verdicts did not reach the execution cache the attempts read (the coordinator's): an exec worker on another checkout version (the runner version is part of every verdict's key), or another process serving the run's coordinator queue`
              : `${stage}: still asking for executions after ${MAX_ROUNDS} rounds (${got.pending.count} this round): the attempts do not get the verdicts the exec queue returns`,
            'InfraFault',
          );
        }
        r.seen.push(got.pending.sha256);
        r.previous = got.pending.sha256;
        r.queue = [{ file: got.pending.file, batches: got.pending.batches }];
        r.stream = got.stream ?? null;
        r.executions.requested += got.pending.count;
        progress.batches_done = 0;
      }
      progress.stage = stage === 'score' ? 'execute' : `${stage}: execute`;
      if (!(await runBatches(r))) return continueNow();
      r.queue = null;
      if (historyFull()) {
        r.round++;
        return continueNow();
      }
    }
  };

  /** A stage's failure as one line that names the stage, keeping the root failure's type (the CLI's exit code). */
  const stage = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ContinueAsNew) throw err;
      let root: unknown = err;
      while (root instanceof Error && (root as { cause?: unknown }).cause instanceof Error) root = (root as { cause?: unknown }).cause;
      const message = root instanceof Error ? root.message : String(root);
      const type = root instanceof ApplicationFailure ? root.type : null;
      if (message.startsWith('run: ')) throw err;
      throw ApplicationFailure.nonRetryable(`run stopped at ${name}: ${message}`, type ?? 'StageFailed');
    }
  };

  let layers: SandboxLayers | null = carry.layers;
  const sandboxLayers = async () => (layers ??= await exec.pipelineSandboxLayers());

  const enter = (stage: string) => Object.assign(progress, { stage, round: 0, batches_done: 0, batches_total: 0 });
  const note = (line: string) => progress.notes.push(line);

  // build
  enter('build');
  // Done in an earlier run of this workflow (it continued as new): recorded, not done again.
  if (!result.stages.build) await stage('build', async () => {
    // A build in progress when the run continued as new goes on at its round (carry.rounds), not from the state check.
    const state = carry.rounds?.stage === 'build' ? null : await local.pipelineBuildState({ out: benchmark });
    if (state && (order > 0 || (state.complete && !input.rebuild && input.from !== 'build'))) {
      if (!state.complete) throw ApplicationFailure.nonRetryable(`${benchmark} is incomplete (${state.reason}); run without --from to build it`, 'InvalidInputError');
      note(`build: ${benchmark} exists (use --rebuild to build again)`);
      await record('build', { status: 'skipped', output: state.output, note: 'benchmark complete (manifest and every file hash match)' });
      // Never embed an empty benchmark (an earlier build that accepted nothing still wrote its files).
      if (!state.output.counts.queries) {
        throw ApplicationFailure.nonRetryable(
          `run: ${benchmark}/queries.jsonl has no queries (the build accepted no task; see ${benchmark}/report.json); fix the source and run again with --rebuild`,
          'NoTaskAccepted',
        );
      }
      return state.output;
    }
    if (state && !state.complete && state.exists && !input.rebuild) note(`build: ${benchmark} is incomplete (${state.reason}): building it again`);
    const l = await sandboxLayers();
    const b = await withExecRounds('build', (after) =>
      local.pipelineBuildAttempt({ runDir: input.runDir, source: input.source, out: benchmark, seed: input.seed, profile: input.profile, cap: input.cap, layers: l, batchSize, ...(after ? { after } : {}) }),
    );
    await record('build', { status: 'done', rounds: b.rounds, resumed: b.resumed, ...(b.harvests ? { harvests: b.harvests } : {}), executions: b.executions, output: b.output });
    const c = b.output.counts;
    note(`build: ${c.queries} queries, ${c.corpus} corpus items (${c.distractors} distractors); rejected: ${c.import_rejected} at import, ${c.precheck_rejected} at precheck, ${c.mutation_rejected} at mutation, ${c.gate_rejected} by the gate`);
    if (!c.queries) {
      throw ApplicationFailure.nonRetryable(
        `build: no task accepted, ${c.input_records} of ${c.input_records} records rejected; ${b.output.rejections || 'no input records'} (details: ${benchmark}/report.json)`,
        'NoTaskAccepted',
      );
    }
    return b.output;
  });

  const finished = () => {
    enter('done');
    return result;
  };
  if (input.until === 'build') return finished();

  // embed
  if (result.stages.embed) {
    // done before the run continued as new
  } else if (order <= PIPELINE_STAGES.indexOf('embed')) {
    enter('embed');
    const sweep: EmbedSweepResult = await stage('embed', () => executeChild(embedSweep, {
      taskQueue: input.queues.default,
      workflowId: `${workflowInfo().workflowId}-embed`,
      args: [{ queues: input.queues, ...(input.coordinatorQueue ? { coordinatorQueue: input.coordinatorQueue } : {}), runDir: input.runDir, configIds: input.configs, configFiles: input.configFiles ?? [], ...(input.batch ? { batch: true } : {}), ...(input.retryDeadlineMs ? { retry: { ...SWEEP_SEND_RETRY, maxRetryMs: input.retryDeadlineMs } } : {}) }],
    }));
    const ids = (status: string) => sweep.results.filter((r) => r.status === status).map((r) => r.config_id);
    for (const r of sweep.results) if (r.status === 'failed') note(`embed: ${r.config_id} failed: ${r.reason}`);
    note(`embed: ${ids('ok').length} configuration(s) embedded${ids('failed').length ? `, ${ids('failed').length} failed` : ''}; report: ${sweep.report}`);
    await record('embed', {
      status: 'done',
      output: { report: sweep.report, ok: ids('ok'), failed: sweep.results.filter((r) => r.status === 'failed').map((r) => ({ config_id: r.config_id, reason: r.reason })), unavailable: ids('unavailable') },
    });
  } else {
    await record('embed', { status: 'skipped' });
  }

  if (input.until === 'embed') return finished();

  // rank -> execute -> score (+ statistics and the report, which scoreRun writes)
  if (order <= PIPELINE_STAGES.indexOf('score')) {
    const configs = input.configs ? [...input.configs, ...(input.configs.includes(BM25) ? [] : [BM25])] : undefined;
    const l = await sandboxLayers();
    const s = await stage('score', () => withExecRounds('score', (after) =>
      local.pipelineScoreAttempt({ runDir: input.runDir, configs, replicates: input.replicates, seed: input.seed, timeout_s: input.timeout_s, ...(input.configFiles?.length ? { configFiles: input.configFiles } : {}), layers: l, batchSize, ...(after ? { after } : {}) }),
    ));
    result.score = s.output;
    await record('score', { status: 'done', rounds: s.rounds, resumed: s.resumed, ...(s.harvests ? { harvests: s.harvests } : {}), executions: s.executions, output: s.output });
  } else {
    enter('report');
    const files = await stage('report', () => local.pipelineReport({ runDir: input.runDir, replicates: input.replicates, seed: input.seed }));
    await record('report', { status: 'done', output: { files } });
  }
  return finished();
}
