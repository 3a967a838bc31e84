import type { CaseResult } from '../../schemas/repoIndex.ts';

/**
 * Aggregates computed from the kept case-level results, per retriever and slice, always with the number of
 * cases behind them (a mean reciprocal rank can improve while a critical area regresses).
 *   pass_rate               = passed cases / n
 *   required_evidence_rate  = cases with every evidence group within the cutoff / n
 *   hit_rate                = cases with any acceptable chunk within the cutoff / n
 *   mrr                     = mean reciprocal rank (0 for a miss)
 *   group_recall            = mean per-case evidence-group recall
 *   forbidden_rate          = cases with ≥ 1 forbidden chunk within the cutoff / n
 *   revision_mismatch_rate  = cases with ≥ 1 chunk from another revision within the cutoff / n
 *   context_lines_mean      = mean lines of the final context (what a pass at the cutoff costs)
 *   context_tokens_mean     = mean tokens of the final context
 * The `context` dimension has two slices, `with` (the case carries reliable context: open file, package or
 * language) and `without`: the guide asks for both kinds of case, and a filter that helps one can hurt the other.
 */
export const SLICE_DIMENSIONS = ['all', 'query_class', 'language', 'area', 'split', 'context'] as const;
export type SliceDimension = (typeof SLICE_DIMENSIONS)[number];

export interface AggregateRow {
  retriever: string;
  dimension: SliceDimension;
  slice: string;
  n: number;
  pass_rate: number;
  required_evidence_rate: number;
  hit_rate: number;
  mrr: number;
  group_recall: number;
  forbidden_rate: number;
  revision_mismatch_rate: number;
  context_lines_mean: number;
  context_tokens_mean: number;
}

/** A rate as the reports and the gate print it: `12.3%`. */
export const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const rate = (rs: readonly CaseResult[], f: (r: CaseResult) => boolean) => mean(rs.map((r) => (f(r) ? 1 : 0)));

export function summarise(results: readonly CaseResult[]): Omit<AggregateRow, 'retriever' | 'dimension' | 'slice'> {
  return {
    n: results.length,
    pass_rate: rate(results, (r) => r.passed),
    required_evidence_rate: rate(results, (r) => r.required_evidence),
    hit_rate: rate(results, (r) => r.hit),
    mrr: mean(results.map((r) => r.reciprocal_rank)),
    group_recall: mean(results.map((r) => r.group_recall)),
    forbidden_rate: rate(results, (r) => r.forbidden_chunk_ids.length > 0),
    revision_mismatch_rate: rate(results, (r) => r.revision_mismatches.length > 0),
    context_lines_mean: mean(results.map((r) => r.context_lines ?? 0)),
    context_tokens_mean: mean(results.map((r) => r.context_tokens ?? 0)),
  };
}

/** The slice a result falls in along a dimension (the gate's slice minimums use the same values). */
export function sliceValue(r: CaseResult, d: SliceDimension): string {
  if (d === 'all') return 'all';
  if (d === 'context') return r.context && Object.keys(r.context).length ? 'with' : 'without';
  return String(r[d]);
}

/** Rows sorted by retriever, dimension (in SLICE_DIMENSIONS order), slice. */
export function aggregate(results: readonly CaseResult[], dimensions: readonly SliceDimension[] = SLICE_DIMENSIONS): AggregateRow[] {
  const groups = new Map<string, { retriever: string; dimension: SliceDimension; slice: string; rs: CaseResult[] }>();
  for (const r of results) {
    for (const d of dimensions) {
      const slice = sliceValue(r, d);
      const key = JSON.stringify([r.retriever, d, slice]);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { retriever: r.retriever, dimension: d, slice, rs: [] }));
      g.rs.push(r);
    }
  }
  const order = (d: SliceDimension) => SLICE_DIMENSIONS.indexOf(d);
  return [...groups.values()]
    .sort((a, b) => (a.retriever < b.retriever ? -1 : a.retriever > b.retriever ? 1 : order(a.dimension) - order(b.dimension) || (a.slice < b.slice ? -1 : a.slice > b.slice ? 1 : 0)))
    .map((g) => ({ retriever: g.retriever, dimension: g.dimension, slice: g.slice, ...summarise(g.rs) }));
}
