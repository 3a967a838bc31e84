import { execAtK } from './exec_at_k.ts';
import { executionPrecisionAtK } from './execution_precision.ts';
import { ndcgAtK } from './ndcg.ts';
import { reciprocalRankFirstPassing } from './reciprocal_rank.ts';

/** Cutoffs the paper reports for every family. */
export const CUTOFFS = [1, 3, 5, 10] as const;
/** How deep each ranking is executed (the paper executes every top-10 snippet). */
export const EXEC_DEPTH = 10;

/** Every per-query metric, by name. The order here is the order of tables and columns everywhere. */
export const METRICS = [
  ...CUTOFFS.map((k) => `exec@${k}` as const),
  ...CUTOFFS.map((k) => `execp@${k}` as const),
  ...CUTOFFS.map((k) => `ndcg@${k}` as const),
  'rr_exec@10',
  'canonical_rank',
] as const;
export type MetricName = (typeof METRICS)[number];
/** Metrics that are 0/1 per query: the ones McNemar applies to. */
export const BINARY_METRICS: readonly MetricName[] = CUTOFFS.map((k) => `exec@${k}` as const);

export interface QueryEvaluationInput {
  /** Corpus ids in rank order (at least the top EXEC_DEPTH). */
  ranked: readonly string[];
  /** Oracle verdicts for ranked[0..EXEC_DEPTH). */
  passed: readonly boolean[];
  relevant: ReadonlySet<string>;
  /** Exact rank of the best correct item in the full ranking (see canonical_rank.ts). */
  canonical_rank: number;
}

export function evaluateQuery(input: QueryEvaluationInput): Record<MetricName, number> {
  const depth = Math.min(EXEC_DEPTH, input.ranked.length);
  if (input.passed.length < depth) {
    throw new RangeError(`evaluateQuery: ${depth} ranked snippets need verdicts, got ${input.passed.length}`);
  }
  const out = {} as Record<MetricName, number>;
  // Filled family by family so the keys come out in METRICS order.
  for (const k of CUTOFFS) out[`exec@${k}`] = execAtK(input.passed, k);
  for (const k of CUTOFFS) out[`execp@${k}`] = executionPrecisionAtK(input.passed, k);
  for (const k of CUTOFFS) out[`ndcg@${k}`] = ndcgAtK(input.ranked, input.relevant, k);
  out['rr_exec@10'] = reciprocalRankFirstPassing(input.passed, EXEC_DEPTH);
  out.canonical_rank = input.canonical_rank;
  return out;
}
