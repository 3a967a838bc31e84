/**
 * embedChunk: one range of a configuration's texts (a child of embedSweep), embedded with no shared folder.
 *
 * Loop: the coordinator reserves the next send (the texts its cache still lacks, as many as fit one payload, a
 * ledger row per request written before anything leaves) → an embed worker anywhere sends them and returns the
 * vectors → the coordinator stores vectors and usage. A failed request, or a send whose worker died, is tried
 * again through a new reservation after a durable timer (Retry-After or backoff), so every request that may
 * have been billed has its row first. A child workflow of its own because the vectors pass through its history:
 * the sweep's history holds one result per chunk, not the vectors.
 */
import { proxyActivities, ApplicationFailure, ActivityFailure, ActivityCancellationType, CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import type { EmbedCoordinatorActivities, BatchPlan } from '../activities/embeddings/sweepActivities.ts';
import type { EmbedSendActivities, SendResult } from '../activities/embeddings/sendActivities.ts';
import type { EmbeddingConfig } from '../schemas/embeddingConfig.ts';
import { emptyStats, type EmbedStats } from '../core/embeddings/stats.ts';
import { pastRetryDeadline, retryDelayMs, type RetryTiming } from '../core/embeddings/retryDelay.ts';
import { activityOptions, type TaskQueues } from '../temporal.config.ts';

export interface EmbedChunkInput {
  queues: TaskQueues;
  /** The queue of the process that owns runDir and the embedding cache (default: the default queue). */
  coordinatorQueue?: string;
  runDir: string;
  config: EmbeddingConfig;
  batch: BatchPlan;
  /** The sweep's workflow and run id, as the ledger records who sent a request. */
  sweepId: string;
  retry?: RetryTiming;
}

/**
 * Sends that fail in a row before the configuration fails: a provider's bad minutes are waited out on durable
 * timers (no worker held), up to about 5 minutes of backoff.
 */
export const SWEEP_SEND_RETRY: RetryTiming = { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 60_000, maxRetryAfterMs: 600_000 };

/** The root cause's message, without Temporal's wrapping. */
function reasonOf(err: unknown): string {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** A failure no try will fix (a damaged cache, a full disk, bad input): the chunk fails with it at once. */
function finalFailure(err: unknown): ApplicationFailure | null {
  let e: unknown = err;
  while (e instanceof Error) {
    if (e instanceof ApplicationFailure && e.nonRetryable) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

export async function embedChunk(input: EmbedChunkInput): Promise<EmbedStats> {
  const { runDir, config, batch } = input;
  const coordinator = proxyActivities<EmbedCoordinatorActivities>(activityOptions('default', input.queues, {
    startToCloseTimeout: '10 minutes', ...(input.coordinatorQueue ? { taskQueue: input.coordinatorQueue } : {}),
  }));
  // One attempt per send: a retry must be a new reservation (a ledger row before every request it sends).
  const sender = proxyActivities<EmbedSendActivities>(activityOptions('embed', input.queues, {
    retry: { maximumAttempts: 1 }, cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  }));
  const policy = input.retry ?? SWEEP_SEND_RETRY;
  const stats = emptyStats();
  let failed = 0;
  let failingSince = 0; // workflow time of the first failure in a row (Date.now() is replay-safe in a workflow)
  const again = async (reason: string, retryAfterMs: number | null) => {
    if (failed === 0) failingSince = Date.now();
    failed += 1;
    if (failed >= policy.maxAttempts) {
      throw ApplicationFailure.create({ type: 'NonRetryableProviderError', message: `${config.config_id}: ${reason} (${failed} tries)`, nonRetryable: true });
    }
    // At least 1 ms: a zero jitter draw is still a timer.
    const delay = Math.max(1, retryDelayMs(failed, retryAfterMs, policy, Math.random));
    const late = pastRetryDeadline(Date.now() - failingSince, delay, policy);
    if (late) throw ApplicationFailure.create({ type: 'NonRetryableProviderError', message: `${config.config_id}: ${reason} (${failed} tries; ${late})`, nonRetryable: true });
    stats.retries += 1;
    await sleep(delay);
  };
  for (let first = true; ; first = false) {
    const r = await coordinator.embedReserve({ runDir, config, batch, sweep_id: input.sweepId });
    if (first) Object.assign(stats, { texts: r.texts, unique_texts: r.unique_texts, cached: r.cached });
    if (!r.requests.length) return stats;
    const rows = r.requests.flatMap((q) => (q.row == null ? [] : [q.row]));
    let sent: SendResult;
    try {
      sent = await sender.embedSend({ config, side: batch.side, requests: r.requests.map((q) => q.texts) });
    } catch (err) {
      // Its answer, if any came, is lost with the activity: the reserved rows may have been billed.
      await CancellationScope.nonCancellable(() => coordinator.embedRelease({ runDir, rows, reason: `no answer recorded: ${reasonOf(err)}` }));
      if (isCancellation(err)) throw err;
      const final = finalFailure(err);
      if (final) throw final;
      await again(reasonOf(err), null);
      continue;
    }
    const got = await CancellationScope.nonCancellable(() =>
      coordinator.embedStore({ runDir, config, side: batch.side, requests: r.requests.map(({ texts: _t, ...q }) => q), result: sent }),
    );
    stats.embedded += got.embedded;
    stats.batches += got.batches;
    stats.tokens_reported += got.tokens_reported;
    stats.tokens_estimated += got.tokens_estimated;
    stats.cost_usd += got.cost_usd;
    const f = sent.failure;
    if (!f) continue;
    if (!f.retryable) throw ApplicationFailure.create({ type: 'NonRetryableProviderError', message: f.message, nonRetryable: true });
    // Requests answered before the failure are progress: the count is of sends in a row that moved nothing.
    if (sent.answered.length) failed = 0;
    await again(`${f.http_status ?? 'connection error'}: ${f.message}`, f.retry_after_ms);
  }
}
