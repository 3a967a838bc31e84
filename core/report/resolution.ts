import { mcnemarExact } from '../stats/mcnemar.ts';
import type { PairwiseRow } from '../stats/pairwise.ts';

/**
 * Rank resolution: for each pair of adjacent configurations in the sorted headline (upper, lower), is their
 * difference on a metric resolved at this query count? Two verdicts, as the report states them: the paired
 * bootstrap interval of upper − lower excludes 0, and (exec@k) the Holm-adjusted exact McNemar p < alpha.
 *
 * queries_needed: how many queries a study of the same kind would need for this pair's exact McNemar test to
 * reach p < alpha if the observed discordance held: b and c scale with the query count (b·m/n, c·m/n,
 * rounded), and the smallest such m with p < alpha is found by doubling then bisection (p falls with m for a
 * fixed ratio b:c, up to rounding). The test is the unadjusted one for this single pair (a study that
 * compares only these two); null when b = c (no observed difference to resolve) or past 10^9 queries.
 */
export interface ResolutionRow {
  metric: string;
  upper: string;
  lower: string;
  /** upper − lower. */
  diff: number;
  ci_low: number | null;
  ci_high: number | null;
  resolved_bootstrap: boolean;
  b: number | null;
  c: number | null;
  p_holm: number | null;
  resolved_mcnemar: boolean | null;
  queries_needed: number | null;
}

const MAX_QUERIES = 1e9;

/** Smallest m with exact McNemar p < alpha at discordance b/n, c/n scaled to m queries; null if none up to 10^9. */
export function queriesToResolve(b: number, c: number, n: number, alpha: number): number | null {
  if (b === c || n <= 0) return null;
  const p = (m: number) => mcnemarExact(Math.round((b * m) / n), Math.round((c * m) / n)).p_value;
  let hi = 1;
  while (p(hi) >= alpha) {
    hi *= 2;
    if (hi > MAX_QUERIES) return null;
  }
  let lo = Math.floor(hi / 2); // p(lo) >= alpha or lo = 0
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (p(mid) < alpha) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** One row per adjacent pair of `order` (the headline order, best first) and metric. */
export function rankResolution(
  order: readonly string[],
  pairwise: readonly PairwiseRow[],
  metrics: readonly string[],
  nQueries: number,
  alpha: number,
): ResolutionRow[] {
  const rows: ResolutionRow[] = [];
  for (const metric of metrics) {
    for (let i = 0; i + 1 < order.length; i++) {
      const upper = order[i];
      const lower = order[i + 1];
      const r = pairwise.find((x) => x.metric === metric && ((x.config_a === upper && x.config_b === lower) || (x.config_a === lower && x.config_b === upper)));
      if (!r) continue;
      // A stored row reads A − B; flip it when the upper configuration is its B.
      const flip = r.config_a !== upper;
      const diff = flip ? -r.diff : r.diff;
      const ci_low = r.ci_low === null ? null : flip ? -r.ci_high! : r.ci_low;
      const ci_high = r.ci_high === null ? null : flip ? -r.ci_low! : r.ci_high;
      const b = r.b === null ? null : flip ? r.c : r.b;
      const c = r.c === null ? null : flip ? r.b : r.c;
      rows.push({
        metric,
        upper,
        lower,
        diff,
        ci_low,
        ci_high,
        resolved_bootstrap: ci_low !== null && ci_high !== null && (ci_low > 0 || ci_high < 0),
        b,
        c,
        p_holm: r.p_holm,
        resolved_mcnemar: r.p_holm === null ? null : r.p_holm < alpha,
        queries_needed: b === null || c === null ? null : queriesToResolve(b, c, nQueries, alpha),
      });
    }
  }
  return rows;
}
