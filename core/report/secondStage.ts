import { reciprocalRankFusion } from '../repo/fusion.ts';
import { estimateAll, type BootstrapSettings, type StatEstimate } from '../stats/engine.ts';
import type { ScoredQuery } from './types.ts';

/**
 * Where the first stage leaves the work: exec@1 after a second stage a user could run without an oracle,
 * against exec@k as its ceiling (a reranker of the top k can at best lift a passing snippet that is already
 * there). The second stage here is reciprocal rank fusion (k = 60, core/repo/fusion.ts) of the configuration's
 * executed top `depth` with BM25's order of those same snippets (BM25's stored ranking restricted to them; a
 * snippet outside BM25's stored list gets no BM25 term). Exact RRF ties (ranks (1, 3) and (3, 1) sum alike) keep
 * the first stage's order, never the id order (ids name canonicals), so nothing the oracle knows leaks in.
 * Every snippet reranked was executed, so each value is exact.
 *
 * recovered: of the queries the first stage misses at rank 1 but holds a passing snippet in its top k, the
 * share the second stage puts right, as a ratio of sums (fused − first) / (ceiling − first); negative when
 * fusion loses more queries than it wins.
 */
export interface SecondStageRow {
  config_id: string;
  second: string;
  depth: number;
  first_exec_at_1: StatEstimate;
  fused_exec_at_1: StatEstimate;
  ceiling_exec_at_k: StatEstimate;
  recovered: StatEstimate;
}

/** secondRank: query_id → corpus_id → 1-based rank in the second retriever's stored ranking. */
export function secondStage(
  config_id: string,
  queries: readonly ScoredQuery[],
  second: string,
  secondRank: ReadonlyMap<string, ReadonlyMap<string, number>>,
  depth: number,
  settings: BootstrapSettings,
): SecondStageRow {
  const n = queries.length;
  const first = new Float64Array(n);
  const fused = new Float64Array(n);
  const ceiling = new Float64Array(n);
  queries.forEach((q, i) => {
    const top = q.hits.slice(0, depth);
    if (!top.length) return;
    first[i] = top[0].passed ? 1 : 0;
    ceiling[i] = top.some((h) => h.passed) ? 1 : 0;
    const ranks = secondRank.get(q.query_id);
    const inSecond = top
      .filter((h) => ranks?.has(h.corpus_id))
      .sort((a, b) => ranks!.get(a.corpus_id)! - ranks!.get(b.corpus_id)!);
    const fusedScore = new Map(
      reciprocalRankFusion([top.map((h) => ({ id: h.corpus_id, score: h.score })), inSecond.map((h) => ({ id: h.corpus_id, score: 0 }))]).map((s) => [s.id, s.score]),
    );
    // Array.prototype.sort is stable: equal fused scores keep the first stage's order.
    const reranked = top.slice().sort((a, b) => fusedScore.get(b.corpus_id)! - fusedScore.get(a.corpus_id)!);
    fused[i] = reranked[0].passed ? 1 : 0;
  });
  const diff = fused.map((x, i) => x - first[i]);
  const room = ceiling.map((x, i) => x - first[i]);
  const est = new Map(
    estimateAll(
      n,
      [
        { key: 'first', num: first, den: null },
        { key: 'fused', num: fused, den: null },
        { key: 'ceiling', num: ceiling, den: null },
        { key: 'recovered', num: diff, den: room },
      ],
      settings,
    ).estimates.map((e) => [e.key, e]),
  );
  return {
    config_id,
    second,
    depth,
    first_exec_at_1: est.get('first')!,
    fused_exec_at_1: est.get('fused')!,
    ceiling_exec_at_k: est.get('ceiling')!,
    recovered: est.get('recovered')!,
  };
}
