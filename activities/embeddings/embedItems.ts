import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { invocationFingerprint, prepareText, sideOf, type Side } from '../../core/embeddings/prepare.ts';
import { emptyStats, type EmbedStats } from '../../core/embeddings/stats.ts';
import { l2Normalize } from '../../core/embeddings/vectors.ts';
import { lengthOrder } from '../../core/embeddings/lengthOrder.ts';
import { textHash, type EmbeddingCache } from './cache.ts';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.ts';
import { checkBatch, type EmbeddingProvider } from './types.ts';
import { estimateTokens } from './batchBook.ts';

export interface EmbedItem {
  id: string;
  text: string;
}

export interface EmbedItemsDeps {
  cache: EmbeddingCache;
  /** Created only when something is missing from the cache: a fully cached rerun never loads a model or needs a key. */
  provider: () => Promise<EmbeddingProvider>;
  retry?: RetryPolicy;
  /** Aborted when the activity is cancelled (its configuration failed elsewhere): no further batch or retry is sent. */
  signal?: AbortSignal;
  /** Called after each batch (Temporal heartbeats, progress bars). */
  onBatch?: (done: number, total: number) => void;
  log?: (msg: string) => void;
}

/**
 * Embeds items under one configuration and side: applies the side's template, looks every exact text up in
 * the cache, sends only the missing ones in batches of `batch_size` (retrying rate limits and 5xx, honouring
 * Retry-After), normalises when the configuration says so, stores each batch as soon as it returns, and
 * returns one vector per item in item order.
 */
export async function embedItems(config: EmbeddingConfig, side: Side, items: readonly EmbedItem[], deps: EmbedItemsDeps): Promise<{ vectors: Float32Array[]; stats: EmbedStats }> {
  const stats = emptyStats();
  stats.texts = items.length;
  const fp = invocationFingerprint(config, side);
  const s = sideOf(config, side);
  const sent = items.map((it) => prepareText(s, it.text));
  const hashes = sent.map(textHash);
  const unique = new Map<string, string>(); // hash -> text, first occurrence order
  hashes.forEach((h, i) => unique.has(h) || unique.set(h, sent[i]));
  stats.unique_texts = unique.size;

  const found = deps.cache.getMany(config.config_id, fp, [...unique.keys()]);
  stats.cached = found.size;
  const missing = [...unique.entries()].filter(([h]) => !found.has(h));
  if (missing.length) {
    const provider = await deps.provider();
    // Batches of similar length: a local model pads every text of a batch to the longest, so shortest first cuts
    // its work (MBPP snippets range from 30 to 250+ tokens); by its own token counts when it has a tokenizer.
    const texts = missing.map(([, t]) => t);
    const order = lengthOrder(provider.countTokens?.(texts) ?? texts.map((t) => t.length));
    missing.splice(0, missing.length, ...order.map((i) => missing[i]));
    const total = Math.ceil(missing.length / config.batch_size);
    for (let b = 0; b < total; b++) {
      const batch = missing.slice(b * config.batch_size, (b + 1) * config.batch_size);
      const texts = batch.map(([, t]) => t);
      const batchHashes = batch.map(([h]) => h);
      const res = await withRetry(() => provider.embed(texts, side), deps.retry ?? DEFAULT_RETRY, (e) => {
        stats.retries++;
        deps.log?.(`${config.config_id}: batch ${b + 1}/${total}: ${e.info.status ?? 'connection error'}, retry ${e.attempt} in ${Math.round(e.delayMs)} ms`);
      }, deps.signal);
      checkBatch(config, texts.length, res.vectors);
      const rows = batch.map(([h], i) => ({ hash: h, vector: config.normalize ? l2Normalize(res.vectors[i]) : Float32Array.from(res.vectors[i]) }));
      deps.cache.putMany(config.config_id, fp, rows);
      for (const r of rows) found.set(r.hash, r.vector);
      if (res.tokens != null) stats.tokens_reported += res.tokens;
      else stats.tokens_estimated += estimateTokens(texts);
      stats.batches++;
      stats.embedded += batch.length;
      deps.onBatch?.(b + 1, total);
    }
  }
  const price = config.price_usd_per_million_tokens ?? 0;
  stats.cost_usd = ((stats.tokens_reported + stats.tokens_estimated) * price) / 1e6;
  return { vectors: hashes.map((h) => found.get(h)!), stats };
}
