import { checkK } from './exec_at_k.ts';

/**
 * Tie-aware expected values (McSherry & Najork, "Computing Information Retrieval Performance Measures
 * Efficiently in the Presence of Tied Scores", ECIR 2008): a retriever that gives several items exactly the
 * same score has not ordered them, so the metric is averaged over every order of each tied group (all orders
 * equally likely), instead of taking the one order our hash tie-break happens to produce. Without ties the
 * expected value equals the hash-order value; the difference between the two is how much of a number is the
 * toss.
 *
 * Inputs are parallel arrays in rank order (hash order within a tie), covering at least every item of every
 * tied group that starts inside the cutoff (see tieClosureEnd). Groups are runs of exactly equal scores.
 */

/** A run of equal scores: positions [start, end) of the ranking. */
export interface TieGroup {
  start: number;
  end: number;
}

/** The runs of exactly equal scores of a ranking in rank order. */
export function tieGroups(scores: ArrayLike<number>): TieGroup[] {
  const out: TieGroup[] = [];
  let start = 0;
  for (let i = 1; i <= scores.length; i++) {
    if (i === scores.length || scores[i] !== scores[start]) {
      out.push({ start, end: i });
      start = i;
    }
  }
  return out;
}

/**
 * How many leading items the tie-aware metrics at cutoff `depth` need: the first `depth`, extended to the end
 * of the tied group that holds position `depth` (so that group's verdicts are all known).
 */
export function tieClosureEnd(scores: ArrayLike<number>, depth: number): number {
  if (scores.length <= depth) return scores.length;
  let end = depth;
  while (end < scores.length && scores[end] === scores[depth - 1]) end++;
  return end;
}

function count(flags: readonly boolean[], start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (flags[i]) n++;
  return n;
}

/**
 * Expected exec@k: P(at least one of the top-k passes). Groups wholly inside the top-k decide for sure; for the
 * group that straddles the cutoff (n items, p passing, m of its places inside the top-k) the probability that
 * none of the m places gets a passing item is C(n−p, m) / C(n, m).
 */
export function expectedExecAtK(scores: ArrayLike<number>, passed: readonly boolean[], k: number): number {
  checkK(k);
  for (const g of tieGroups(scores)) {
    if (g.start >= k) return 0;
    const n = g.end - g.start;
    const p = count(passed, g.start, g.end);
    if (p === 0) continue;
    if (g.end <= k) return 1;
    const m = k - g.start;
    let none = 1;
    for (let i = 0; i < m; i++) none *= (n - p - i) / (n - i);
    return 1 - Math.max(0, none);
  }
  return 0;
}

/**
 * Expected execp@k: (1/k) · Σ over tied groups of (places of the group inside the top-k) · (passing share of
 * the group). By linearity each place holds the group's average gain (McSherry & Najork's formula for P@k).
 */
export function expectedPrecisionAtK(scores: ArrayLike<number>, passed: readonly boolean[], k: number): number {
  checkK(k);
  let hits = 0;
  for (const g of tieGroups(scores)) {
    if (g.start >= k) break;
    const inside = Math.min(g.end, k) - g.start;
    hits += (inside * count(passed, g.start, g.end)) / (g.end - g.start);
  }
  return hits / k;
}

/**
 * Expected canonical nDCG@k (binary gain on the correct ids): each place of a tied group gets the group's
 * average gain, DCG@k = Σ_{i<k} avg_gain(group(i)) / log2(i + 2); the ideal DCG is the same as in ndcg.ts
 * (ties cannot change the ideal ranking). `nRelevant` is the size of the query's relevant set.
 */
export function expectedNdcgAtK(scores: ArrayLike<number>, relevant: readonly boolean[], nRelevant: number, k: number): number {
  checkK(k);
  let dcg = 0;
  for (const g of tieGroups(scores)) {
    if (g.start >= k) break;
    const gain = count(relevant, g.start, g.end) / (g.end - g.start);
    if (gain === 0) continue;
    for (let i = g.start; i < Math.min(g.end, k); i++) dcg += gain / Math.log2(i + 2);
  }
  let idcg = 0;
  for (let i = 0; i < Math.min(k, nRelevant); i++) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

/**
 * Expected reciprocal rank of the first passing item within `depth`: the first tied group with a passing item
 * (start s, n items, p passing) holds it; its first passing place J (1-based inside the group) has
 * P(J = j) = C(n−j, p−1) / C(n, p), and E[RR] = Σ_j P(J = j) / (s + j) over places s + j ≤ depth.
 */
export function expectedReciprocalRank(scores: ArrayLike<number>, passed: readonly boolean[], depth = 10): number {
  for (const g of tieGroups(scores)) {
    if (g.start >= depth) return 0;
    const n = g.end - g.start;
    const p = count(passed, g.start, g.end);
    if (p === 0) continue;
    let prob = p / n; // P(J = 1)
    let rr = 0;
    for (let j = 1; j <= n - p + 1 && g.start + j <= depth; j++) {
      rr += prob / (g.start + j);
      // P(J = j + 1) / P(J = j) = C(n−j−1, p−1) / C(n−j, p−1) = (n − j − p + 1) / (n − j).
      prob *= (n - j - p + 1) / (n - j);
    }
    return rr;
  }
  return 0;
}
