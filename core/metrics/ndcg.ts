import { checkK } from './exec_at_k.ts';

/**
 * Canonical-ID nDCG@k (Järvelin & Kekäläinen 2002) with binary gain on the query's `correct_corpus_ids`,
 * as trec_eval / pytrec_eval compute `ndcg_cut_k`: DCG@k = sum_{i=1..k} rel_i / log2(i + 1), divided by the
 * DCG of the ideal ranking of the relevant set truncated at k. Labels, not execution: this is the paper's
 * identity-based metric next to the execution-based ones. No relevant ids gives 0 (trec_eval skips such
 * queries; we keep every query in the mean and never have an empty set, the schema requires one).
 * `ranked` must be in rank order and already tie-broken (ours: score desc, then a hash of corpus_id,
 * see core/ranking/topk.ts idOrderOf).
 */
export function ndcgAtK(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  checkK(k);
  let dcg = 0;
  const end = Math.min(k, ranked.length);
  for (let i = 0; i < end; i++) if (relevant.has(ranked[i])) dcg += 1 / Math.log2(i + 2);
  let idcg = 0;
  const ideal = Math.min(k, relevant.size);
  for (let i = 0; i < ideal; i++) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}
