import type { MetricName } from '../metrics/per_query.ts';
import type { DeceptionRecord } from '../deception/per_query.ts';

/** One query under one configuration: every metric and the deception record. */
export interface QueryScore {
  query_id: string;
  domain: string | null;
  /** Absent: python. */
  language?: string;
  metrics: Record<MetricName, number>;
  deception: DeceptionRecord;
}

/** All queries of one configuration, in the benchmark's query order (the same order for every config). */
export interface ConfigScores {
  config_id: string;
  queries: readonly QueryScore[];
}

/** One executed snippet of a query's top-10. */
export interface ScoredHit {
  corpus_id: string;
  score: number;
  passed: boolean;
  /** Per-test outcomes from the oracle (`pass`, `FAIL`, `FAIL: ..`, `TIMEOUT`, `ERROR: ..`). */
  outcomes: string[];
}

/** The query's own canonical(s) and distractors under this configuration. */
export interface OwnHit {
  corpus_id: string;
  score: number;
  /** Exact rank in the full ranking. */
  rank: number;
  is_canonical: boolean;
  bug_type: string | null;
}

/** What `score` stores per (configuration, query): enough to rebuild every table and the drill-down. */
export interface ScoredQuery extends QueryScore {
  /** The executed top-10 (rank order). */
  hits: ScoredHit[];
  own: OwnHit[];
  /**
   * closure: how many leading items entered the tie-aware metrics (10 plus the rest of the tied group at rank
   * 10); truncated: 1 when that group reaches the end of the stored top list, so members beyond it are unseen.
   */
  ties: { closure: number; truncated: 0 | 1 };
}
