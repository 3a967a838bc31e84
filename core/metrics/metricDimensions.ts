import { TIE_AWARE_SUFFIX } from './per_query.ts';

/**
 * A statistic's name taken apart into the dimensions it packs, for the Parquet outputs (scores.parquet,
 * pairwise.parquet), so a query filters `measure = 'exec' AND k = 10` instead of matching text:
 *
 *   exec@10_ta               measure exec, k 10, tie_aware true, group null
 *   rr_exec@10               measure rr_exec, k 10
 *   canonical_rank           measure canonical_rank, k null
 *   bug_outscore:off_by_one  measure bug_outscore, group off_by_one (a bug type; a domain for domain_deception)
 *
 * The name itself stays in the files (`metric`): summary.json and the report use it, and older runs have only it.
 */
export interface MetricDimensions {
  measure: string;
  k: number | null;
  tie_aware: boolean;
  group: string | null;
}

export function metricDimensions(name: string): MetricDimensions {
  const colon = name.indexOf(':');
  let base = colon < 0 ? name : name.slice(0, colon);
  const group = colon < 0 ? null : name.slice(colon + 1);
  const tie_aware = base.endsWith(TIE_AWARE_SUFFIX);
  if (tie_aware) base = base.slice(0, -TIE_AWARE_SUFFIX.length);
  const at = /^(.+)@(\d+)$/.exec(base);
  return at ? { measure: at[1], k: Number(at[2]), tie_aware, group } : { measure: base, k: null, tie_aware, group };
}
