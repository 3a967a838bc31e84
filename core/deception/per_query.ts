/**
 * Deception analyses for one query under one retriever (the paper's §findings): does a near-clone buggy
 * variant of the canonical beat the canonical?
 *
 * "Beats" means "ranks before" in the retriever's full ranking (score descending, ties in the hashed-id order of core/ranking/topk.ts), so the
 * analyses agree with the rankings people see. With several correct items the best-ranked one stands for
 * the canonical.
 */
export interface OwnItem {
  corpus_id: string;
  score: number;
  rank: number;
  /** Distractors only. */
  bug_type?: string | null;
}

export interface DeceptionInput {
  correct: readonly OwnItem[];
  distractors: readonly OwnItem[];
  /** The snippet at rank 1 and whether it passed the query's tests (oracle verdict). */
  top1_corpus_id: string;
  top1_passed: boolean;
}

export interface DeceptionRecord {
  /** 1 when the query has at least one own distractor (the denominator of the deception rate). */
  has_distractor: 0 | 1;
  /** 1 when at least one own distractor outranks the canonical. */
  deceived: 0 | 1;
  /**
   * 1 when an own distractor has exactly the canonical's score. The tie-break (a hash of the corpus id, blind
   * to which item is the canonical) then decides, not the retriever: reported so readers can see how much of
   * a retriever's score rests on ties (BM25 ties whenever the edit changes no token).
   */
  tied: 0 | 1;
  /** 1 when the rank-1 snippet fails the query's tests. */
  rank1_miss: 0 | 1;
  /** 1 when the rank-1 snippet fails AND is one of the query's own distractors. */
  rank1_own_distractor: 0 | 1;
  /**
   * Pairwise preference (CoQuIR-style): over (canonical, distractor) pairs, wins = pairs where the canonical
   * scores strictly higher, ties count one half (an indifferent retriever scores 0.5, not 0).
   */
  pref_wins: number;
  pref_pairs: number;
  /** Per bug type: how many of this type outrank the canonical, out of how many. */
  by_bug_type: Record<string, { outranks: number; total: number }>;
}

export const UNKNOWN_BUG_TYPE = 'unknown';

export function deceptionForQuery(input: DeceptionInput): DeceptionRecord {
  if (input.correct.length === 0) throw new RangeError('deception: a query needs at least one correct item');
  const canonical = input.correct.reduce((best, c) => (c.rank < best.rank ? c : best));
  let deceived: 0 | 1 = 0;
  let tied: 0 | 1 = 0;
  let wins = 0;
  const byBug: Record<string, { outranks: number; total: number }> = {};
  for (const d of input.distractors) {
    const outranks = d.rank < canonical.rank;
    if (outranks) deceived = 1;
    if (d.score === canonical.score) tied = 1;
    wins += canonical.score > d.score ? 1 : canonical.score === d.score ? 0.5 : 0;
    const bug = d.bug_type ?? UNKNOWN_BUG_TYPE;
    const slot = (byBug[bug] ??= { outranks: 0, total: 0 });
    slot.total++;
    if (outranks) slot.outranks++;
  }
  const own = input.distractors.some((d) => d.corpus_id === input.top1_corpus_id);
  return {
    has_distractor: input.distractors.length > 0 ? 1 : 0,
    deceived,
    tied,
    rank1_miss: input.top1_passed ? 0 : 1,
    rank1_own_distractor: !input.top1_passed && own ? 1 : 0,
    pref_wins: wins,
    pref_pairs: input.distractors.length,
    by_bug_type: byBug,
  };
}
