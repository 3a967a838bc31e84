import { basename } from 'node:path';
import { embeddingBatchBound } from '../../core/generation/cost.ts';
import { WORKER_ID, estimateTokens } from '../embeddings/batchBook.ts';
import { retryInfo } from '../embeddings/retry.ts';
import { runPaths } from '../generation/runFiles.ts';
import { embeddingLedgerAt } from '../ledger/embeddingLedger.ts';

/**
 * Rerank requests and endpoint searches in the run's ledger (ARCHITECTURE.md: every request that leaves the machine
 * is a row before it is sent and is completed when it returns). They go into the embedding ledger's `embed_batches`
 * table under config_id `rerank:<id>` / `endpoint:<id>`, with the same bounds (chars, tokens at most, cost at most
 * before sending) and the billed cost after, so `audit` and the report total them with the sweeps' requests.
 */
export interface RequestAt {
  runDir: string;
  sweep_id: 'rerank' | 'retrieve';
  config_id: string;
  fingerprint: string;
  side: string;
  provider: string;
  model: string;
}

export interface Billed {
  tokens: number | null;
  cost_usd: number;
}

/** Sends one request between its `started` row and its answer (`ok`, with what it was billed) or failure. */
export async function booked<T>(at: RequestAt, texts: readonly string[], hashes: readonly string[], costMax: number, send: () => Promise<T>, billed: (res: T) => Billed): Promise<T> {
  const ledger = embeddingLedgerAt(runPaths(at.runDir).ledger);
  const bound = embeddingBatchBound(texts, 0);
  const row = ledger.startBatch({
    run_id: basename(at.runDir), sweep_id: at.sweep_id, config_id: at.config_id, fingerprint: at.fingerprint, side: at.side,
    provider: at.provider, model: at.model, hashes, ...bound, cost_usd_max: costMax, started_at: new Date().toISOString(), worker: WORKER_ID,
  });
  const t0 = performance.now();
  try {
    const res = await send();
    const b = billed(res);
    ledger.finishBatch(row, { tokens_reported: b.tokens, tokens_estimated: b.tokens == null ? estimateTokens(texts) : null, cost_usd: b.cost_usd, latency_ms: performance.now() - t0 });
    return res;
  } catch (e) {
    ledger.failBatch(row, { http_status: retryInfo(e).status, error: e instanceof Error ? e.message : String(e), latency_ms: performance.now() - t0 });
    throw e;
  }
}

/** The worst case of one rerank request, before it is sent, at the reranker's price. */
export function rerankCostMax(query: string, docs: readonly string[], price: number | null, unit: 'million_tokens' | 'thousand_searches' | null): number {
  if (!price || !unit) return 0;
  // Token-billed rerankers count the query once per document plus the documents (Voyage's FAQ on rerank tokens).
  const tokens = embeddingBatchBound(docs.map((d) => `${query}\n${d}`), price);
  if (unit === 'million_tokens') return tokens.cost_usd_max;
  // Cohere bills search units: one query with up to 100 documents, a document counted once per 500 tokens: bounded
  // with every byte a token.
  const chunks = docs.reduce((a, d) => a + Math.max(1, Math.ceil((Buffer.byteLength(d, 'utf8') + 16) / 500)), 0);
  return (Math.ceil(chunks / 100) * price) / 1000;
}
