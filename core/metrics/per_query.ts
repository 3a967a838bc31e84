import { execAtK } from './exec_at_k.ts';
import { executionPrecisionAtK } from './execution_precision.ts';
import { ndcgAtK } from './ndcg.ts';
import { reciprocalRankFirstPassing } from './reciprocal_rank.ts';
import { expectedExecAtK, expectedNdcgAtK, expectedPrecisionAtK, expectedReciprocalRank, tieClosureEnd } from './tie_aware.ts';

/** Cutoffs the paper reports for every family. */
export const CUTOFFS = [1, 3, 5, 10] as const;
/** How deep each ranking is executed (the paper executes every top-10 snippet). */
export const EXEC_DEPTH = 10;

/** Hash-order metrics: computed on the ranking as stored (ties broken by a hash of corpus_id, core/ranking/topk.ts). */
export const HASH_ORDER_METRICS = [
  ...CUTOFFS.map((k) => `exec@${k}` as const),
  ...CUTOFFS.map((k) => `execp@${k}` as const),
  ...CUTOFFS.map((k) => `ndcg@${k}` as const),
  'rr_exec@10',
  'canonical_rank',
] as const;
/** Suffix of a tie-aware expected value (core/metrics/tie_aware.ts): `exec@1_ta` is the expectation of exec@1 over every order of each tied group. */
export const TIE_AWARE_SUFFIX = '_ta';
export const TIE_AWARE_METRICS = [
  ...CUTOFFS.map((k) => `exec@${k}_ta` as const),
  ...CUTOFFS.map((k) => `execp@${k}_ta` as const),
  ...CUTOFFS.map((k) => `ndcg@${k}_ta` as const),
  'rr_exec@10_ta',
] as const;
/** Every per-query metric, by name. The order here is the order of tables and columns everywhere. */
export const METRICS = [...HASH_ORDER_METRICS, ...TIE_AWARE_METRICS] as const;
export type MetricName = (typeof METRICS)[number];
/**
 * Metrics that are 0/1 per query: the ones McNemar applies to. The significance tests use the hash-order
 * values (what a production system returns); the tie-aware ones are fractional and get intervals only.
 */
export const BINARY_METRICS: readonly MetricName[] = CUTOFFS.map((k) => `exec@${k}` as const);

export interface QueryEvaluationInput {
  /** Corpus ids in rank order (at least the top EXEC_DEPTH, and the rest of the tied group at EXEC_DEPTH). */
  ranked: readonly string[];
  /** Scores parallel to `ranked` (the tie groups of the tie-aware metrics). */
  scores: ArrayLike<number>;
  /** Oracle verdicts for ranked[0..tieClosureEnd(scores, EXEC_DEPTH)). */
  passed: readonly boolean[];
  relevant: ReadonlySet<string>;
  /** Exact rank of the best correct item in the full ranking (see canonical_rank.ts). */
  canonical_rank: number;
}

export function evaluateQuery(input: QueryEvaluationInput): Record<MetricName, number> {
  if (input.scores.length !== input.ranked.length) {
    throw new RangeError(`evaluateQuery: ${input.ranked.length} ranked ids but ${input.scores.length} scores`);
  }
  const closure = tieClosureEnd(input.scores, EXEC_DEPTH);
  if (input.passed.length < closure) {
    throw new RangeError(`evaluateQuery: ${closure} ranked snippets need verdicts, got ${input.passed.length}`);
  }
  const scores = Array.from({ length: closure }, (_, i) => input.scores[i]);
  const passed = input.passed.slice(0, closure);
  const top = passed.slice(0, EXEC_DEPTH);
  const rel = input.ranked.slice(0, closure).map((id) => input.relevant.has(id));
  const out = {} as Record<MetricName, number>;
  // Filled family by family so the keys come out in METRICS order.
  for (const k of CUTOFFS) out[`exec@${k}`] = execAtK(top, k);
  for (const k of CUTOFFS) out[`execp@${k}`] = executionPrecisionAtK(top, k);
  for (const k of CUTOFFS) out[`ndcg@${k}`] = ndcgAtK(input.ranked, input.relevant, k);
  out['rr_exec@10'] = reciprocalRankFirstPassing(top, EXEC_DEPTH);
  out.canonical_rank = input.canonical_rank;
  for (const k of CUTOFFS) out[`exec@${k}_ta`] = expectedExecAtK(scores, passed, k);
  for (const k of CUTOFFS) out[`execp@${k}_ta`] = expectedPrecisionAtK(scores, passed, k);
  for (const k of CUTOFFS) out[`ndcg@${k}_ta`] = expectedNdcgAtK(scores, rel, input.relevant.size, k);
  out['rr_exec@10_ta'] = expectedReciprocalRank(scores, passed, EXEC_DEPTH);
  return out;
}
