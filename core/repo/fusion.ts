import { DEFAULT_TIE_KEY, tieRank } from '../ranking/tieKey.ts';

/**
 * Hybrid retrieval: fuse ranked lists from several retrievers into one ranking. Ties break in the keyed tie
 * order (core/ranking/tieKey.ts), so a fused ranking is deterministic without favouring ids that sort early.
 */
export interface Scored {
  id: string;
  score: number;
}

/**
 * Ranking order for every list here: higher score first, exact ties by the keyed hash of the id (the scorer's
 * rule, core/ranking/topk.ts; plain id order would hand every tie to the file or chunk that sorts first), then
 * the id (code-unit order). The key is the default one; hashes are memoised per comparator since a sort
 * compares each id many times.
 */
export function byScoreThen<T extends { score: number }>(idOf: (t: T) => string, tieKey = DEFAULT_TIE_KEY): (a: T, b: T) => number {
  const memo = new Map<string, number>();
  const rank = (id: string) => {
    let r = memo.get(id);
    if (r === undefined) {
      if (memo.size >= 200_000) memo.clear(); // the shared comparator (byScoreThenId) lives as long as the process
      memo.set(id, (r = tieRank(tieKey, id)));
    }
    return r;
  };
  return (a, b) => {
    const d = b.score - a.score;
    if (d) return d;
    const ia = idOf(a);
    const ib = idOf(b);
    return rank(ia) - rank(ib) || (ia < ib ? -1 : ia > ib ? 1 : 0);
  };
}

export const byScoreThenId = byScoreThen<Scored>((s) => s.id);

function sortScored(scores: Map<string, number>): Scored[] {
  return [...scores].map(([id, score]) => ({ id, score })).sort(byScoreThenId);
}

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009):
 *   RRF(d) = Σ_i w_i / (k + rank_i(d)),  rank 1-based, k = 60 as in the paper,
 * summed over the lists that contain d. Only ranks matter, so it needs no score calibration between
 * retrievers (scores are not interchangeable across retrievers; the guide's point).
 */
export function reciprocalRankFusion(lists: readonly (readonly Scored[])[], opts: { k?: number; weights?: readonly number[] } = {}): Scored[] {
  const k = opts.k ?? 60;
  if (!(k >= 0)) throw new Error(`rrf: k must be >= 0 (got ${k})`);
  const fused = new Map<string, number>();
  lists.forEach((list, i) => {
    const w = opts.weights?.[i] ?? 1;
    list.forEach((item, r) => fused.set(item.id, (fused.get(item.id) ?? 0) + w / (k + r + 1)));
  });
  return sortScored(fused);
}

/** Min-max normalise a list's scores to [0, 1]; a list whose scores are all equal maps to 1 (all tied best). */
export function minMaxNormalise(list: readonly Scored[]): Scored[] {
  if (list.length === 0) return [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of list) {
    lo = Math.min(lo, s.score);
    hi = Math.max(hi, s.score);
  }
  return list.map((s) => ({ id: s.id, score: hi > lo ? (s.score - lo) / (hi - lo) : 1 }));
}

/**
 * Weighted score fusion (convex combination, "CombSUM" of min-max normalised scores, Fox & Shaw 1994):
 *   F(d) = Σ_i w_i · norm_i(d), with norm_i(d) = 0 when list i lacks d.
 * Normalisation is per list, over the candidates it returned.
 */
export function weightedScoreFusion(lists: readonly (readonly Scored[])[], weights: readonly number[]): Scored[] {
  if (weights.length !== lists.length) throw new Error(`weighted fusion: ${lists.length} lists but ${weights.length} weights`);
  const fused = new Map<string, number>();
  lists.forEach((list, i) => {
    for (const s of minMaxNormalise(list)) fused.set(s.id, (fused.get(s.id) ?? 0) + weights[i] * s.score);
  });
  return sortScored(fused);
}
