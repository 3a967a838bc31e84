/**
 * Reciprocal rank of the first passing snippet: 1 / rank of the first retrieved snippet that passes the
 * query's tests as executed, 0 when none of the first `depth` passes. Depth is 10 because only the top-10
 * of each ranking is executed (so this is MRR@10 with execution as the relevance judgement).
 */
export function reciprocalRankFirstPassing(passed: readonly boolean[], depth = 10): number {
  const end = Math.min(depth, passed.length);
  for (let i = 0; i < end; i++) if (passed[i]) return 1 / (i + 1);
  return 0;
}
