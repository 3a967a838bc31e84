/**
 * Rankings made by another system (a TREC run, a CSV of scores, a search service's answers), checked against the
 * benchmark and then ranked exactly like our own configurations: a full score row per query, summarised with the
 * one tie rule (topk.ts idOrderOf) so ties, own-item ranks and the tie-aware metrics mean the same thing.
 *
 * A corpus item the run does not list for a query gets UNRETRIEVED, below every score a run may carry: all such
 * items tie with each other at the bottom (the run did not order them), as trec_eval treats unretrieved documents.
 */
import { checkRange, summariseRow, RANK_DEPTH, type QueryRanking, type RankQuery, type Ranker } from './rank.ts';
import { idOrderOf } from './topk.ts';

/** Score of an item the run leaves out for a query: finite (it travels through JSON), below any accepted score. */
export const UNRETRIEVED = -Number.MAX_VALUE;

/** One (query, corpus item, score) line of an imported run; `where` names it for messages (`run.trec:12`, `run.parquet row 3`). */
export interface RunRow {
  query_id: string;
  corpus_id: string;
  score: number;
  /** The file's own rank column, when it has one: checked against the scores, never used to order them. */
  rank?: number;
  where: string;
  /** The score as the file wrote it, kept when it is not a finite number (`inf`, `0x10`): what a rejection quotes. */
  score_text?: string;
}

export interface RunCheck {
  /** One line naming every problem found (the first few of each kind), or null when the run is usable. */
  error: string | null;
  /** Benchmark query ids the run ranks anything for, in benchmark order. */
  covered: string[];
  /** Benchmark query ids the run has no line for. */
  missing: string[];
}

const SHOW = 3;
function named(kind: string, items: readonly string[]): string {
  const more = items.length > SHOW ? `, and ${items.length - SHOW} more` : '';
  return `${items.length} ${kind} (${items.slice(0, SHOW).join('; ')}${more})`;
}

/**
 * Checks a run against the benchmark's ids: unknown query or corpus ids, duplicate (query, corpus) pairs, scores that
 * are not finite numbers, a rank column that contradicts the scores, and queries with no line (allowed only with
 * `partial`). Every kind of problem found goes into the one error line.
 */
export function checkRun(rows: readonly RunRow[], queryIds: readonly string[], corpusIds: ReadonlySet<string>, opts: { partial?: boolean } = {}): RunCheck {
  const queries = new Set(queryIds);
  const unknownQ: string[] = [];
  const unknownC: string[] = [];
  const dup: string[] = [];
  const bad: string[] = [];
  const seen = new Map<string, string>();
  const covered = new Set<string>();
  for (const r of rows) {
    if (!queries.has(r.query_id)) unknownQ.push(`${r.where}: ${r.query_id}`);
    if (!corpusIds.has(r.corpus_id)) unknownC.push(`${r.where}: ${r.corpus_id}`);
    if (!Number.isFinite(r.score) || r.score <= UNRETRIEVED) bad.push(`${r.where}: ${r.score_text ?? r.score}`);
    const key = `${r.query_id}\u0000${r.corpus_id}`;
    const first = seen.get(key);
    if (first) dup.push(`${r.where}: ${r.query_id} ${r.corpus_id} again (first at ${first})`);
    else seen.set(key, r.where);
    if (queries.has(r.query_id)) covered.add(r.query_id);
  }
  const ranks = rankContradictions(rows);
  const missing = queryIds.filter((q) => !covered.has(q));
  const problems: string[] = [];
  if (rows.length === 0) problems.push('no rows');
  if (unknownQ.length) problems.push(named('unknown query ids', unknownQ));
  if (unknownC.length) problems.push(named('unknown corpus ids', unknownC));
  if (dup.length) problems.push(named('duplicate (query, corpus) pairs', dup));
  if (bad.length) problems.push(named('scores that are not finite numbers', bad));
  if (ranks.length) problems.push(named('ranks that contradict the scores', ranks));
  if (missing.length && !opts.partial && rows.length) {
    problems.push(`${named('benchmark queries missing', missing)}: import them, or pass --partial to score every configuration on the ${covered.size} queries this run covers`);
  }
  return { error: problems.length ? problems.join('; ') : null, covered: queryIds.filter((q) => covered.has(q)), missing };
}

/** Rows whose rank column puts them above a row of the same query with a higher score. */
export function rankContradictions(rows: readonly RunRow[]): string[] {
  const byQuery = new Map<string, RunRow[]>();
  for (const r of rows) if (r.rank !== undefined) (byQuery.get(r.query_id) ?? byQuery.set(r.query_id, []).get(r.query_id)!).push(r);
  const out: string[] = [];
  for (const list of byQuery.values()) {
    const sorted = [...list].sort((a, b) => a.rank! - b.rank!);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i].score > sorted[i - 1].score) out.push(`${sorted[i].where}: rank ${sorted[i].rank} scores ${sorted[i].score} > rank ${sorted[i - 1].rank}'s ${sorted[i - 1].score}`);
    }
  }
  return out;
}

/**
 * Ranks every query from an imported run's rows (already checked: known ids, no duplicates, finite scores): the
 * query's full score row over `corpusIds` (UNRETRIEVED where the run is silent), then summariseRow with the shared
 * tie order, exactly as rankDense and rankBm25 do. A query without any row (a search service that found nothing)
 * ranks every item tied; for files, checkRun has already refused such a query unless the import is partial.
 */
export function rankImported(queries: readonly RankQuery[], rows: readonly Pick<RunRow, 'query_id' | 'corpus_id' | 'score'>[], corpusIds: readonly string[], depth = RANK_DEPTH, tieKey?: string): QueryRanking[] {
  const r = importedRanker(queries, rows, corpusIds, depth, tieKey);
  return r.rank(0, r.queries);
}

/** rankImported prepared once (the rows by query, the tie order) and computed for any range of queries (rank.ts Ranker). */
export function importedRanker(queries: readonly RankQuery[], rows: readonly Pick<RunRow, 'query_id' | 'corpus_id' | 'score'>[], corpusIds: readonly string[], depth = RANK_DEPTH, tieKey?: string): Ranker {
  const index = new Map(corpusIds.map((id, i) => [id, i]));
  const byQuery = new Map<string, { c: number; s: number }[]>();
  for (const r of rows) {
    const c = index.get(r.corpus_id);
    if (c === undefined) continue; // an item the scorer's benchmark no longer holds (a record it rejected)
    (byQuery.get(r.query_id) ?? byQuery.set(r.query_id, []).get(r.query_id)!).push({ c, s: r.score });
  }
  const idOrder = idOrderOf(corpusIds, tieKey);
  const row = new Float64Array(corpusIds.length);
  return {
    queries: queries.length,
    corpus: corpusIds.length,
    rank(from, to) {
      checkRange('rankImported', queries.length, from, to);
      return queries.slice(from, to).map((q) => {
        row.fill(UNRETRIEVED);
        for (const h of byQuery.get(q.query_id) ?? []) row[h.c] = h.s;
        return summariseRow(q, row, idOrder, depth);
      });
    },
  };
}
