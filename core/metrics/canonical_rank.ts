/**
 * The canonical's rank: the 1-based position of the best-ranked correct corpus id in the FULL ranking, not
 * only the top-100 we store, so a canonical the retriever buries still has a number. Computed from the
 * query's score row with the ranking's tie rule (score descending, then `idOrder`, see core/ranking/topk.ts):
 * rank = 1 + #items that score higher + #items with an equal score that come first in the tie order.
 * O(corpus) per query, no sort.
 */
export function rankInScores(scores: ArrayLike<number>, idOrder: Int32Array, target: number): number {
  const s = scores[target];
  const pos = idOrder[target];
  let better = 0;
  for (let i = 0; i < scores.length; i++) {
    const v = scores[i];
    if (v > s || (v === s && idOrder[i] < pos)) better++;
  }
  return better + 1;
}

/** Rank of the best-ranked of several correct items (each given as an index into the score row). */
export function canonicalRank(scores: ArrayLike<number>, idOrder: Int32Array, correct: readonly number[]): number {
  if (correct.length === 0) throw new RangeError('canonicalRank: a query needs at least one correct corpus id');
  let best = Infinity;
  for (const t of correct) best = Math.min(best, rankInScores(scores, idOrder, t));
  return best;
}
