/**
 * Deception analyses for one query under one retriever (the paper's §findings): does a near-clone buggy
 * variant of the canonical beat the canonical?
 *
 * "Beats" is decided by SCORE, as the paper defines it ("the canonical scores below at least one of its paired
 * distractors"), never by the hash tie-break of the ranking: a distractor with exactly the canonical's score
 * is a tie, counted in its own column, because which of the two the ranking shows first is a coin toss of
 * core/ranking/topk.ts, not the retriever's doing. With several correct items the best-scoring one stands
 * for the canonical. (Definitions shared with docs/metrics.md and the report glossary, core/report/glossary.ts.)
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

/** Per bug type: of `total` distractors, how many score strictly above their canonical, and how many exactly equal. */
export interface BugTypeCounts {
  outscores: number;
  ties: number;
  total: number;
}

export interface DeceptionRecord {
  /** 1 when the query has at least one own distractor (the denominator of the deception rate). */
  has_distractor: 0 | 1;
  /** 1 when at least one own distractor scores strictly above the canonical. */
  deceived: 0 | 1;
  /**
   * 1 when no own distractor scores above the canonical but at least one has exactly its score: the ranking's
   * order between them is the hash tie-break's. deceived and tied never both hold, so per query exactly one
   * of deceived / tied / neither is true (BM25 ties whenever the edit changes no token).
   */
  tied: 0 | 1;
  /** 1 when the rank-1 snippet (hash order) fails the query's tests. */
  rank1_miss: 0 | 1;
  /** 1 when the rank-1 snippet fails AND is one of the query's own distractors. */
  rank1_own_distractor: 0 | 1;
  /**
   * Pairwise preference (CoQuIR-style): over (canonical, distractor) pairs, wins = pairs where the canonical
   * scores strictly higher, ties count one half (an indifferent retriever scores 0.5, not 0).
   */
  pref_wins: number;
  pref_pairs: number;
  by_bug_type: Record<string, BugTypeCounts>;
}

export const UNKNOWN_BUG_TYPE = 'unknown';

export function deceptionForQuery(input: DeceptionInput): DeceptionRecord {
  if (input.correct.length === 0) throw new RangeError('deception: a query needs at least one correct item');
  const canonicalScore = Math.max(...input.correct.map((c) => c.score));
  let outscored = false;
  let equalled = false;
  let wins = 0;
  const byBug: Record<string, BugTypeCounts> = {};
  for (const d of input.distractors) {
    const above = d.score > canonicalScore;
    const equal = d.score === canonicalScore;
    if (above) outscored = true;
    if (equal) equalled = true;
    wins += above ? 0 : equal ? 0.5 : 1;
    const bug = d.bug_type ?? UNKNOWN_BUG_TYPE;
    const slot = (byBug[bug] ??= { outscores: 0, ties: 0, total: 0 });
    slot.total++;
    if (above) slot.outscores++;
    if (equal) slot.ties++;
  }
  const own = input.distractors.some((d) => d.corpus_id === input.top1_corpus_id);
  return {
    has_distractor: input.distractors.length > 0 ? 1 : 0,
    deceived: outscored ? 1 : 0,
    tied: !outscored && equalled ? 1 : 0,
    rank1_miss: input.top1_passed ? 0 : 1,
    rank1_own_distractor: !input.top1_passed && own ? 1 : 0,
    pref_wins: wins,
    pref_pairs: input.distractors.length,
    by_bug_type: byBug,
  };
}
