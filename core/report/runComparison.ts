import { holmAdjust } from '../stats/holm.ts';
import type { BootstrapSettings } from '../stats/engine.ts';
import { HEADLINE } from './headline.ts';
import { computeStatistics, PAIRWISE_METRICS } from './statistics.ts';
import type { ConfigScores } from './types.ts';

/**
 * Two runs side by side (`execretrieval compare-runs A B`). On the same benchmark (identical queries.jsonl and
 * corpus.jsonl) each configuration the two runs share is a paired comparison over the same queries: the
 * paired-bootstrap difference A − B for every compared metric and, for exec@k, the exact McNemar test, Holm-
 * adjusted per metric across the shared configurations (one family per metric, as within a run). On different
 * benchmarks there is nothing to pair: the headline numbers are listed side by side with no test.
 */
export interface RunComparisonRow {
  config_id: string;
  metric: string;
  value_a: number | null;
  value_b: number | null;
  diff: number | null;
  ci_low: number | null;
  ci_high: number | null;
  b: number | null;
  c: number | null;
  p_value: number | null;
  p_holm: number | null;
}

export interface RunComparison {
  same_benchmark: boolean;
  /** Configurations in both runs, in run A's order; then those only in one. */
  common: string[];
  only_a: string[];
  only_b: string[];
  rows: RunComparisonRow[];
}

function split(a: readonly string[], b: readonly string[]) {
  const inB = new Set(b);
  const inA = new Set(a);
  return { common: a.filter((c) => inB.has(c)), only_a: a.filter((c) => !inB.has(c)), only_b: b.filter((c) => !inA.has(c)) };
}

/** Same benchmark: per shared configuration, run A's queries against run B's (same query order required). */
export function compareSameBenchmark(a: readonly ConfigScores[], b: readonly ConfigScores[], settings: BootstrapSettings): RunComparison {
  const { common, only_a, only_b } = split(a.map((c) => c.config_id), b.map((c) => c.config_id));
  const rows: RunComparisonRow[] = [];
  for (const id of common) {
    const qa = a.find((c) => c.config_id === id)!.queries;
    const qb = b.find((c) => c.config_id === id)!.queries;
    // computeStatistics checks both cover the same queries in the same order.
    const s = computeStatistics([{ config_id: 'A', queries: qa }, { config_id: 'B', queries: qb }], settings);
    for (const r of s.pairwise) {
      rows.push({ config_id: id, metric: r.metric, value_a: r.value_a, value_b: r.value_b, diff: r.diff, ci_low: r.ci_low, ci_high: r.ci_high, b: r.b, c: r.c, p_value: r.p_value, p_holm: null });
    }
  }
  for (const metric of PAIRWISE_METRICS) {
    const family = rows.filter((r) => r.metric === metric && r.p_value !== null);
    const adjusted = holmAdjust(family.map((r) => r.p_value!));
    family.forEach((r, i) => (r.p_holm = adjusted[i]));
  }
  return { same_benchmark: true, common, only_a, only_b, rows };
}

/** Different benchmarks: each run's headline estimates (summary.json `estimates`) next to each other, no test. */
export function sideBySide(
  a: Record<string, Record<string, { estimate: number }>>,
  b: Record<string, Record<string, { estimate: number }>>,
): RunComparison {
  const { common, only_a, only_b } = split(Object.keys(a), Object.keys(b));
  const rows: RunComparisonRow[] = [];
  for (const id of [...common, ...only_a, ...only_b]) {
    for (const metric of HEADLINE) {
      const va = a[id]?.[metric]?.estimate ?? null;
      const vb = b[id]?.[metric]?.estimate ?? null;
      rows.push({ config_id: id, metric, value_a: va, value_b: vb, diff: null, ci_low: null, ci_high: null, b: null, c: null, p_value: null, p_holm: null });
    }
  }
  return { same_benchmark: false, common, only_a, only_b, rows };
}
