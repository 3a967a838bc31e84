import { holmAdjust } from './holm.ts';
import { discordantCounts, mcnemarExact } from './mcnemar.ts';
import { pairedBootstrapDifference } from './paired_bootstrap.ts';

/**
 * Every unordered pair of configurations, for every metric: the paired-bootstrap difference A − B with its
 * interval; for binary metrics also the exact McNemar test on the discordant counts b (A passes, B fails)
 * and c, with Holm's correction applied per metric across all pairs (the family is "all pairwise
 * comparisons of this metric", as the paper reports one pairwise table per metric). Pairs are ordered by
 * the order of `configs` (A before B).
 */
export interface PairwiseRow {
  metric: string;
  config_a: string;
  config_b: string;
  value_a: number;
  value_b: number;
  diff: number;
  ci_low: number | null;
  ci_high: number | null;
  b: number | null;
  c: number | null;
  p_value: number | null;
  p_holm: number | null;
}

export interface PairwiseSource {
  /** Observed statistic for (config, metric). */
  estimate(config: string, metric: string): number;
  /** Bootstrap replicates for (config, metric), drawn on shared resamples. */
  replicates(config: string, metric: string): Float64Array;
  /** Per-query 0/1 outcomes for binary metrics (query order shared by all configs). */
  binary(config: string, metric: string): ArrayLike<number>;
}

export function pairwiseComparisons(
  configs: readonly string[],
  metrics: readonly string[],
  binaryMetrics: ReadonlySet<string>,
  src: PairwiseSource,
  alpha = 0.05,
): PairwiseRow[] {
  const rows: PairwiseRow[] = [];
  for (const metric of metrics) {
    const first = rows.length;
    for (let i = 0; i < configs.length; i++) {
      for (let j = i + 1; j < configs.length; j++) {
        const a = configs[i];
        const b = configs[j];
        const va = src.estimate(a, metric);
        const vb = src.estimate(b, metric);
        const d = pairedBootstrapDifference(va, vb, src.replicates(a, metric), src.replicates(b, metric), alpha);
        let mc: { b: number; c: number; p_value: number } | null = null;
        if (binaryMetrics.has(metric)) {
          const dc = discordantCounts(src.binary(a, metric), src.binary(b, metric));
          mc = mcnemarExact(dc.b, dc.c);
        }
        rows.push({
          metric,
          config_a: a,
          config_b: b,
          value_a: va,
          value_b: vb,
          diff: d.diff,
          ci_low: d.ci_low,
          ci_high: d.ci_high,
          b: mc?.b ?? null,
          c: mc?.c ?? null,
          p_value: mc?.p_value ?? null,
          p_holm: null,
        });
      }
    }
    if (binaryMetrics.has(metric)) {
      const family = rows.slice(first);
      const adj = holmAdjust(family.map((r) => r.p_value ?? NaN));
      family.forEach((r, k) => (r.p_holm = adj[k]));
    }
  }
  return rows;
}
