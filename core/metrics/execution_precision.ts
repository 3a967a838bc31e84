import { checkK } from './exec_at_k.ts';

/**
 * execution_precision@k (execp@k): the fraction of the top-k that pass the query's tests,
 * (1/k) * sum_{i<=k} pass(d_i). The denominator is k even when fewer than k snippets were retrieved, the
 * precision-at-cutoff convention of trec_eval's P_k, so a short ranking is not rewarded.
 */
export function executionPrecisionAtK(passed: readonly boolean[], k: number): number {
  checkK(k);
  const end = Math.min(k, passed.length);
  let hits = 0;
  for (let i = 0; i < end; i++) if (passed[i]) hits++;
  return hits / k;
}
