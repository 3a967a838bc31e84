/**
 * embedSweep: embed a built benchmark's queries and corpus under many configurations.
 *
 * Plan (which configurations can run here, the ranges of texts) → per configuration, its ranges fan out as child
 * workflows (embedChunk: reserve on the coordinator, send on an embed worker anywhere, store on the coordinator;
 * a few in flight at a time; one at a time for in-process models, which already use every core, and one
 * in-process model at a time) → its matrices are written → one report. A configuration that fails (no key, a
 * provider that keeps failing, a malformed answer) fails alone: its reason goes into the report and the others
 * finish. The embedding cache makes a rerun or a resumed run re-embed nothing already embedded.
 */
import { proxyActivities, ApplicationFailure, ActivityFailure, ChildWorkflowFailure, CancellationScope, defineQuery, executeChild, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { EmbedCoordinatorActivities, ConfigResult, ConfigPlan } from '../activities/embeddings/sweepActivities.ts';
import { embedChunk } from './embedChunk.ts';
import type { EmbedSendActivities } from '../activities/embeddings/sendActivities.ts';
import { withAvailability } from '../core/embeddings/planAvailability.ts';
import type { RetryTiming } from '../core/embeddings/retryDelay.ts';
import type { EmbeddingConfig } from '../schemas/embeddingConfig.ts';
import { POLL_FIRST_MS, POLL_MAX_MS } from './batchRound.ts';
import { addStats, emptyStats, type EmbedStats } from '../core/embeddings/stats.ts';
import { isInProcess } from '../core/embeddings/inProcess.ts';
import { activityOptions, type TaskQueues } from '../temporal.config.ts';

export interface EmbedSweepInput {
  queues: TaskQueues;
  /**
   * The queue of the process that owns runDir, the embedding cache and the run's ledger (`run --no-worker`'s
   * CLI); default: the default queue. Embed workers need none of them (workflows/embedChunk.ts).
   */
  coordinatorQueue?: string;
  /** How sends that fail are tried again (default SWEEP_SEND_RETRY, workflows/embedChunk.ts). */
  retry?: RetryTiming;
  /** `runs/<id>` (relative to the worker's project root, or absolute). */
  runDir: string;
  /** null = every configuration in the registry. */
  configIds: string[] | null;
  configFiles?: string[];
  /** Batches in flight per hosted configuration (default 4). */
  hostedConcurrency?: number;
  /**
   * `embed --batch`: hosted OpenAI configurations send their missing texts through the Batch API in rounds
   * (activities/batch/embedBatch.ts); other configurations stay on the real-time path.
   */
  batch?: boolean;
  /** Poll backoff for --batch: the first wait after submitting, doubling up to the cap (ms). Tests use tens of ms. */
  pollFirstMs?: number;
  pollMaxMs?: number;
}

/** Rounds that send a batch, per configuration and sweep: a line failed inside a batch is sent again at most twice. */
const BATCH_ROUNDS = 3;

/**
 * How far the real-time sends are, in texts (each range a child embeds counts when it returns; a failed
 * configuration's unsent ranges leave the total). Texts sent through the Batch API are not counted: they take
 * minutes to hours and report their rounds instead.
 */
export interface EmbedProgress {
  texts_done: number;
  texts_total: number;
}
export const embedProgressQuery = defineQuery<EmbedProgress>('embedProgress');

export interface EmbedSweepResult {
  report: string;
  results: ConfigResult[];
}

const sumStats = (xs: EmbedStats[]): EmbedStats => xs.reduce(addStats, emptyStats());

/** The root cause's message, without Temporal's wrapping ("Activity task failed"). */
function reasonOf(err: unknown): string {
  let e: unknown = err;
  while ((e instanceof ActivityFailure || e instanceof ChildWorkflowFailure) && e.cause) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/**
 * A fault of the machine, not of the configuration (a damaged cache, a full disk: activities/temporalFaults.ts
 * makes them non-retryable `InfraFault`s): every configuration would meet it, so the sweep fails with its line
 * (the CLI exits 5) instead of reporting one failed configuration after another and exiting 0.
 */
function infraFaultOf(err: unknown): ApplicationFailure | null {
  let e: unknown = err;
  while (e instanceof Error) {
    if (e instanceof ApplicationFailure && e.type === 'InfraFault') return e;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

export async function embedSweep(input: EmbedSweepInput): Promise<EmbedSweepResult> {
  if (!input.runDir) throw ApplicationFailure.nonRetryable('embedSweep: runDir is required', 'InvalidInputError');
  // Everything that reads the run folder or writes the cache and ledger is the coordinator's; embed workers only send.
  const acts = proxyActivities<EmbedCoordinatorActivities>(activityOptions('default', input.queues, {
    startToCloseTimeout: '30 minutes', heartbeatTimeout: '30 seconds', ...(input.coordinatorQueue ? { taskQueue: input.coordinatorQueue } : {}),
  }));
  const { workflowId, runId } = workflowInfo();
  const sweepId = `${workflowId}/${runId}`;
  const progress: EmbedProgress = { texts_done: 0, texts_total: 0 };
  setHandler(embedProgressQuery, () => progress);
  // Through the Batch API: rounds until nothing is missing (each round sends what the cache still lacks, so a
  // line that failed inside the previous batch goes into the next). A round already recorded by an earlier try
  // or sweep is polled and ingested, never sent again.
  const viaBatch = async (config: EmbeddingConfig): Promise<EmbedStats> => {
    const stats = emptyStats();
    Object.assign(stats, await acts.embedBatchCounts({ runDir: input.runDir, config }));
    let sent = 0;
    for (let round = 1; sent < BATCH_ROUNDS; round++) {
      const r = { runDir: input.runDir, config, round };
      const sub = await acts.embedBatchSubmit(r);
      if (!sub.batch_id) break;
      if (sub.how !== 'recorded') sent += 1;
      let wait = input.pollFirstMs ?? POLL_FIRST_MS;
      while (!(await acts.embedBatchPoll(r)).ended) {
        await sleep(wait);
        wait = Math.min(wait * 2, input.pollMaxMs ?? POLL_MAX_MS);
      }
      const got = await acts.embedBatchIngest(r);
      stats.embedded += got.texts;
      stats.batches += got.answered;
      stats.tokens_reported += got.tokens_reported;
      stats.tokens_estimated += got.tokens_estimated;
      stats.cost_usd += got.cost_usd;
    }
    return stats;
  };

  const planned = await acts.embedPlan({ runDir: input.runDir, configIds: input.configIds, configFiles: input.configFiles });
  const ready = planned.configs.filter((p) => p.status === 'ready').map((p) => p.config);
  const said = ready.length ? await proxyActivities<EmbedSendActivities>(activityOptions('embed', input.queues, { startToCloseTimeout: '2 minutes' })).embedAvailability({ configs: ready }) : [];
  const plan = { ...planned, configs: withAvailability(planned.configs, said) };
  const realTime = (p: ConfigPlan) => p.status === 'ready' && !(input.batch && p.config.provider === 'openai');
  const textsOf = (b: { start: number; end: number }) => b.end - b.start;
  progress.texts_total = plan.configs.filter(realTime).reduce((n, p) => n + p.batches.reduce((m, b) => m + textsOf(b), 0), 0);

  const one = async (p: ConfigPlan): Promise<ConfigResult> => {
    const base = { config_id: p.config.config_id, stats: null, files: [], dims: null };
    if (p.status !== 'ready') return { ...base, status: p.status, reason: p.reason };
    const local = isInProcess(p.config.provider);
    const width = local ? 1 : Math.max(1, input.hostedConcurrency ?? 4);
    const stats: EmbedStats[] = [];
    // OpenAI's is the batch API wired here (its /v1/embeddings lines); a local model has nothing to batch.
    if (input.batch && p.config.provider === 'openai') {
      try {
        stats.push(await viaBatch(p.config));
        const written = await acts.writeEmbeddingMatrices({ runDir: plan.runDir, config: p.config });
        return { ...base, status: 'ok', reason: null, stats: sumStats(stats), files: written.files, dims: written.dims };
      } catch (err) {
        const fault = infraFaultOf(err);
        if (fault) throw ApplicationFailure.nonRetryable(fault.message, 'InfraFault');
        return { ...base, status: 'failed', reason: reasonOf(err), stats: stats.length ? sumStats(stats) : null };
      }
    }
    // The first failure of this configuration: no lane takes another range, and the ones in flight are cancelled
    // (a child's send stops before its next request, a waiting retry at once; the lane waits until it has).
    let failure: { err: unknown } | null = null;
    const scope = new CancellationScope();
    try {
      let next = 0;
      const lane = async () => {
        while (next < p.batches.length && !failure) {
          const batch = p.batches[next++];
          try {
            // A child per range: the vectors pass through its history, not this one (workflows/embedChunk.ts).
            stats.push(await executeChild(embedChunk, {
              workflowId: `${workflowId}/${runId.slice(0, 8)}/${p.config.config_id}/${batch.side}/${batch.start}`,
              taskQueue: input.queues.default,
              args: [{ queues: input.queues, ...(input.coordinatorQueue ? { coordinatorQueue: input.coordinatorQueue } : {}), runDir: plan.runDir, config: p.config, batch, sweepId, ...(input.retry ? { retry: input.retry } : {}) }],
            }));
            progress.texts_done += textsOf(batch);
          } catch (err) {
            progress.texts_total -= textsOf(batch); // failed or cancelled: it will not be sent
            if (!failure) {
              failure = { err };
              scope.cancel();
            }
          }
        }
      };
      // Every lane ends (a cancelled batch once its activity has stopped) before the configuration is reported.
      await scope.run(() => Promise.all(Array.from({ length: Math.min(width, p.batches.length) }, lane)));
      // The ranges no lane took after the failure leave the total too.
      for (; next < p.batches.length; next++) progress.texts_total -= textsOf(p.batches[next]);
      if (failure) throw (failure as { err: unknown }).err;
      const written = await acts.writeEmbeddingMatrices({ runDir: plan.runDir, config: p.config });
      return { ...base, status: 'ok', reason: null, stats: sumStats(stats), files: written.files, dims: written.dims };
    } catch (err) {
      const fault = infraFaultOf(err);
      if (fault) throw ApplicationFailure.nonRetryable(fault.message, 'InfraFault');
      return { ...base, status: 'failed', reason: reasonOf(err), stats: stats.length ? sumStats(stats) : null };
    }
  };

  // In-process models run one after another, hosted ones side by side: one in-process batch already uses every
  // core, so two models at once only compete for them (and starve the JavaScript thread that tokenizes and loads
  // the next one). Curated set, MiniLM + static-64 + SPLADE-tiny at load 17-19: 127 s one after another, 151 s
  // side by side (docs/build-and-score-time.md).
  let inProcessTail: Promise<unknown> = Promise.resolve();
  const results = await Promise.all(
    plan.configs.map((p) => {
      if (p.status !== 'ready' || !isInProcess(p.config.provider)) return one(p);
      const r = inProcessTail.then(() => one(p));
      inProcessTail = r;
      return r;
    }),
  );
  const report = await acts.writeEmbedReport({ runDir: plan.runDir, plan: { runDir: plan.runDir, problems: plan.problems, counts: plan.counts }, results, configs: plan.configs.map((p) => p.config) });
  return { report, results };
}
