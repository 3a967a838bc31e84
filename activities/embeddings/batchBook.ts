/**
 * The sweep's batch bookkeeping: every embedding request that leaves the machine is an `embed_batches` row of
 * the run's ledger, written before it is sent and completed when it returns (activities/ledger/embeddingLedger.ts).
 * `embedItems` calls a `BatchBook` around each request; this file binds one to a run, configuration and side.
 */
import { hostname } from 'node:os';
import { embeddingBatchBound } from '../../core/generation/cost.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import type { EmbeddingLedger } from '../ledger/embeddingLedger.ts';
import { isInProcess } from '../../core/embeddings/inProcess.ts';

/**
 * Records one request around its send: `sending` writes its `started` row before it may leave (the sweep's
 * coordinator, at reservation), then `answered` or `failed` completes it with what came back.
 */
export interface BatchBook {
  sending(texts: readonly string[], hashes: readonly string[]): number;
  /** `chars`: characters sent (the estimate where the provider reports no usage); `worker`: who sent it, if not the reserver. */
  answered(row: number, chars: number, tokens: number | null, latency_ms: number, worker?: string): void;
  failed(row: number, err: { http_status: number | null; message: string }, latency_ms: number): void;
}

/** `host:pid` of this process, as the ledger records who sent a request. */
export const WORKER_ID = `${hostname()}:${process.pid}`;

/** Whether the worker that wrote `host:pid` may still be running: on this host, its pid; elsewhere, assume so. */
export function workerMayBeAlive(worker: string): boolean {
  const at = worker.lastIndexOf(':');
  if (worker.slice(0, at) !== hostname()) return true;
  const pid = Number(worker.slice(at + 1));
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Characters / 4: the estimate for providers that report no usage (the same rule as the ledger's, BatchBook.answered). */
export const estimateTokens = (texts: readonly string[]) => Math.ceil(texts.reduce((a, t) => a + t.length, 0) / 4);

/** Whether requests under this configuration leave the machine (in-process models bill nothing and are not rows). */
export const isHosted = (config: EmbeddingConfig) => !isInProcess(config.provider);

export function ledgerBook(
  ledger: EmbeddingLedger,
  at: { run_id: string; sweep_id: string; config: EmbeddingConfig; fingerprint: string; side: string },
): BatchBook {
  const price = at.config.price_usd_per_million_tokens ?? 0;
  return {
    sending(texts, hashes) {
      const bound = embeddingBatchBound(texts, price);
      return ledger.startBatch({
        run_id: at.run_id, sweep_id: at.sweep_id, config_id: at.config.config_id, fingerprint: at.fingerprint, side: at.side,
        provider: at.config.provider, model: at.config.model, hashes, ...bound, started_at: new Date().toISOString(), worker: WORKER_ID,
      });
    },
    answered(row, chars, tokens, latency_ms, worker) {
      const estimated = tokens == null ? Math.ceil(chars / 4) : null;
      ledger.finishBatch(row, { tokens_reported: tokens, tokens_estimated: estimated, cost_usd: ((tokens ?? estimated!) * price) / 1e6, latency_ms, ...(worker ? { worker } : {}) });
    },
    failed(row, err, latency_ms) {
      ledger.failBatch(row, { http_status: err.http_status, error: err.message, latency_ms });
    },
  };
}
