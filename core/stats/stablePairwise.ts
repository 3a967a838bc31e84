import { holmAdjust } from './holm.ts';
import { mcnemarExact } from './mcnemar.ts';
import { pairedBootstrapDifference } from './paired_bootstrap.ts';
import type { PairwiseRow, PairwiseSource } from './pairwise.ts';

/**
 * Pairwise comparisons that the ranking's tie order cannot decide (issue 28). A tie-aware exec@k value per
 * query (core/metrics/tie_aware.ts) is 1 when every order of the tied groups passes, 0 when none does, and in
 * between when the outcome is a toss of the tie-break. The exact McNemar test here counts a discordant query
 * only when both configurations' outcomes are settled (0 or 1): b = A surely passes and B surely fails, c the
 * reverse. Queries where either outcome is unsettled count for neither side (`unsettled`), so no conclusion
 * rests on which tied snippet a hash put first. The interval is the paired-bootstrap difference of the tie-aware
 * means. Holm's correction per metric across all pairs, as in pairwise.ts.
 *
 * A pair McNemar cannot decide: with n = b + c settled discordant queries the smallest p it can give is
 * 2 · 0.5^n, so with n ≤ 5 (alpha 0.05) it cannot reject whatever the data say; a tie-heavy retriever leaves
 * exactly that (issue 37: BM25 vs the static model, b = c = 0 with 41 queries unsettled, while the tie-aware
 * difference's interval was [0.072, 0.135]). Such a pair is tested on the tie-aware per-query values instead:
 * the paired-bootstrap p-value of their mean difference (PairedDifference.p_value, from the interval's own replicates), in
 * the same Holm family. `test` says which one decided the row.
 */
export type StableTest = 'mcnemar_settled' | 'paired_bootstrap_ta';

export interface StableRow extends PairwiseRow {
  /** Queries where at least one of the two outcomes depends on the tie order (left out of b and c). */
  unsettled: number;
  test: StableTest;
}

/** Whether the exact McNemar test could reject at `alpha` with `n` discordant pairs (its smallest p is 2 · 0.5^n). */
export function mcnemarCanDecide(n: number, alpha: number): boolean {
  return Math.min(1, 2 * 0.5 ** n) < alpha;
}

/** Discordant counts over settled outcomes only (values exactly 0 or 1), and how many queries were unsettled. */
export function settledDiscordant(a: ArrayLike<number>, bVec: ArrayLike<number>): { b: number; c: number; unsettled: number } {
  if (a.length !== bVec.length) throw new RangeError(`settledDiscordant: lengths differ (${a.length} vs ${bVec.length})`);
  let b = 0;
  let c = 0;
  let unsettled = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = bVec[i];
    if ((x !== 0 && x !== 1) || (y !== 0 && y !== 1)) unsettled++;
    else if (x === 1 && y === 0) b++;
    else if (x === 0 && y === 1) c++;
  }
  return { b, c, unsettled };
}

/** Every unordered pair of `configs` (A before B in the given order) for each tie-aware metric. */
export function stablePairwise(configs: readonly string[], metrics: readonly string[], src: PairwiseSource, alpha = 0.05): StableRow[] {
  const rows: StableRow[] = [];
  for (const metric of metrics) {
    const first = rows.length;
    for (let i = 0; i < configs.length; i++) {
      for (let j = i + 1; j < configs.length; j++) {
        const a = configs[i];
        const b = configs[j];
        const va = src.estimate(a, metric);
        const vb = src.estimate(b, metric);
        const d = pairedBootstrapDifference(va, vb, src.replicates(a, metric), src.replicates(b, metric), alpha);
        const dc = settledDiscordant(src.binary(a, metric), src.binary(b, metric));
        const mc = mcnemarExact(dc.b, dc.c);
        const test: StableTest = mcnemarCanDecide(dc.b + dc.c, alpha) ? 'mcnemar_settled' : 'paired_bootstrap_ta';
        const p = test === 'mcnemar_settled' ? mc.p_value : d.p_value;
        rows.push({ metric, config_a: a, config_b: b, value_a: va, value_b: vb, diff: d.diff, ci_low: d.ci_low, ci_high: d.ci_high, b: mc.b, c: mc.c, p_value: p, p_holm: null, unsettled: dc.unsettled, test });
      }
    }
    const family = rows.slice(first);
    const adj = holmAdjust(family.map((r) => r.p_value ?? NaN));
    family.forEach((r, k) => (r.p_holm = adj[k]));
  }
  return rows;
}
