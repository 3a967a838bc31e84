/**
 * Embedding accounting, summed per configuration into the run's audit. Pure, so the sweep workflow (which may
 * not import activity modules) and the activities share one definition.
 */
export interface EmbedStats {
  texts: number;
  /** Distinct texts sent (after template), the cache's unit. */
  unique_texts: number;
  cached: number;
  embedded: number;
  batches: number;
  retries: number;
  /** Tokens the provider reported for what was embedded now (null parts counted in tokens_estimated). */
  tokens_reported: number;
  /** Tokens estimated (characters / 4) for batches whose provider reports none. */
  tokens_estimated: number;
  cost_usd: number;
}

export const emptyStats = (): EmbedStats => ({ texts: 0, unique_texts: 0, cached: 0, embedded: 0, batches: 0, retries: 0, tokens_reported: 0, tokens_estimated: 0, cost_usd: 0 });

export function addStats(a: EmbedStats, b: EmbedStats): EmbedStats {
  const out = emptyStats();
  for (const k of Object.keys(out) as (keyof EmbedStats)[]) out[k] = a[k] + b[k];
  return out;
}
