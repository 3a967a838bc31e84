import { deceptionForQuery } from '../deception/per_query.ts';
import type { QueryRanking } from '../ranking/rank.ts';
import type { OwnHit, ScoredHit, ScoredQuery } from '../report/types.ts';
import { EXEC_DEPTH, evaluateQuery } from './per_query.ts';
import { tieClosureEnd } from './tie_aware.ts';

export interface Verdict {
  passed: boolean;
  outcomes: string[];
}

export interface ScoreContext {
  corpusIds: readonly string[];
  bugTypeOf: (corpusIndex: number) => string | null;
  domain: string | null;
  /** The query's language when it is not Python (absent: python, so Python scores keep their bytes). */
  language?: string;
  relevant: ReadonlySet<string>;
  /**
   * Oracle verdict of corpus item `corpusIndex` against THIS query's tests: every top-10 item has one, and so
   * does every item tied with the 10th (executionDepth), which the tie-aware metrics need.
   */
  verdict: (corpusIndex: number) => Verdict;
}

/**
 * One query under one configuration: executes nothing itself; combines the ranking with the oracle's
 * verdicts. Passing is decided by execution only: a snippet of another query that passes this query's
 * tests counts, a labelled canonical that fails would not.
 */
export function scoreQuery(r: QueryRanking, ctx: ScoreContext): ScoredQuery {
  const depth = Math.min(EXEC_DEPTH, r.top.length);
  const closure = executionDepth(r);
  const hits: ScoredHit[] = [];
  const passed: boolean[] = [];
  for (let i = 0; i < closure; i++) {
    const ci = r.top[i];
    const v = ctx.verdict(ci);
    passed.push(v.passed);
    if (i < depth) hits.push({ corpus_id: ctx.corpusIds[ci], score: r.topScores[i], passed: v.passed, outcomes: v.outcomes });
  }
  const ranked = Array.from(r.top, (ci) => ctx.corpusIds[ci]);
  const metrics = evaluateQuery({ ranked, scores: r.topScores, passed, relevant: ctx.relevant, canonical_rank: r.canonical_rank });
  // The tied group at rank 10 may run past the stored top list: its unseen members cannot enter the expectation.
  const ties = { closure, truncated: (closure === r.top.length && r.top.length < ctx.corpusIds.length ? 1 : 0) as 0 | 1 };
  const own: OwnHit[] = [
    ...r.correct.map((o) => ({ corpus_id: ctx.corpusIds[o.corpus_index], score: o.score, rank: o.rank, is_canonical: true, bug_type: null })),
    ...r.distractors.map((o) => ({
      corpus_id: ctx.corpusIds[o.corpus_index],
      score: o.score,
      rank: o.rank,
      is_canonical: false,
      bug_type: ctx.bugTypeOf(o.corpus_index),
    })),
  ];
  const deception = deceptionForQuery({
    correct: own.filter((o) => o.is_canonical),
    distractors: own.filter((o) => !o.is_canonical),
    top1_corpus_id: hits[0]?.corpus_id ?? '',
    top1_passed: hits[0]?.passed ?? false,
  });
  return { query_id: r.query_id, domain: ctx.domain, metrics, deception, hits, own, ties, ...(ctx.language ? { language: ctx.language } : {}) };
}

/**
 * How many leading items of a ranking are executed: the top EXEC_DEPTH, extended to the end of the tied group
 * that holds rank EXEC_DEPTH (the tie-aware metrics average over that whole group's orders).
 */
export function executionDepth(r: Pick<QueryRanking, 'topScores'>): number {
  return tieClosureEnd(r.topScores, EXEC_DEPTH);
}
