/**
 * The sweep's two sides for tests: the coordinator's activities (run folder, cache, ledger) on the default queue
 * and the sender on the embed queue, as workers/registry.ts registers them; and `embedRangeHere`, one range
 * embedded by calling the same activities directly (reserve → send → store, no retries), for tests that need
 * vectors without a workflow.
 */
import { createEmbedCoordinator, type BatchPlan, type EmbedActivitiesDeps } from '../../activities/embeddings/sweepActivities.ts';
import { createEmbedSendActivities } from '../../activities/embeddings/sendActivities.ts';
import type { ActivityProvider } from '../../workers/registry.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { emptyStats, type EmbedStats } from '../../core/embeddings/stats.ts';

export function embedWorkers(deps: EmbedActivitiesDeps) {
  const coordinator = createEmbedCoordinator(deps);
  const send = createEmbedSendActivities(deps);
  const close = async () => {
    await send.closeEmbedSend();
    await coordinator.closeEmbedCoordinator();
  };
  /** The providers for `startWorkers`; `wrap` replaces activities (timing, faults) by name. */
  const providers = (wrap: Partial<typeof coordinator & typeof send> = {}): ActivityProvider[] => [
    { queue: 'default', name: 'embeddings:coordinator', create: () => ({ activities: { ...coordinator, ...pick(wrap, coordinator) }, close: coordinator.closeEmbedCoordinator }) },
    { queue: 'embed', name: 'embeddings', create: () => ({ activities: { ...send, ...pick(wrap, send) }, close: send.closeEmbedSend }) },
  ];
  return { coordinator, send, providers, close };
}

function pick<T extends object>(wrap: object, of: T): Partial<T> {
  return Object.fromEntries(Object.entries(wrap).filter(([k]) => k in of)) as Partial<T>;
}

/** One range, embedded through the activities themselves; throws on a failed request (tests want the first failure). */
export async function embedRangeHere(w: ReturnType<typeof embedWorkers>, input: { runDir: string; config: EmbeddingConfig; batch: BatchPlan }): Promise<EmbedStats> {
  const stats = emptyStats();
  for (;;) {
    const r = await w.coordinator.embedReserve({ ...input, sweep_id: 'local' });
    if (!r.requests.length) return stats;
    const sent = await w.send.embedSend({ config: input.config, side: input.batch.side, requests: r.requests.map((q) => q.texts) });
    const got = await w.coordinator.embedStore({ runDir: input.runDir, config: input.config, side: input.batch.side, requests: r.requests.map(({ texts: _t, ...q }) => q), result: sent });
    for (const k of ['embedded', 'batches', 'tokens_reported', 'tokens_estimated', 'cost_usd'] as const) stats[k] += got[k];
    if (sent.failure) throw new Error(sent.failure.message);
  }
}
