import { buildBm25Index } from '../bm25.ts';
import { rankInScores } from '../metrics/canonical_rank.ts';
import { cosineScorer, type DenseMatrix, type RowScorer } from './cosine.ts';
import { sparseDotScorer } from './sparse.ts';
import { DEFAULT_TIE_KEY } from './tieKey.ts';
import { idOrderOf, topK } from './topk.ts';

/** Depth of the rankings we store (the paper's top-100). */
export const RANK_DEPTH = 100;

export interface RankQuery {
  query_id: string;
  text: string;
  /** Corpus indices of the query's correct items. */
  correct: readonly number[];
  /** Corpus indices of the query's own distractors. */
  distractors: readonly number[];
}

export interface OwnScore {
  corpus_index: number;
  score: number;
  /** Exact rank in the full ranking (not limited to the stored depth). */
  rank: number;
}

export interface QueryRanking {
  query_id: string;
  /** Corpus indices of the top RANK_DEPTH, in rank order. */
  top: Int32Array;
  topScores: Float64Array;
  canonical_rank: number;
  /** Scores and exact ranks of the query's own correct items and distractors (the deception analyses). */
  correct: OwnScore[];
  distractors: OwnScore[];
}

/** Turns one full score row into the stored top-k plus the exact ranks the metrics need. */
export function summariseRow(
  q: RankQuery,
  scores: ArrayLike<number>,
  idOrder: Int32Array,
  depth = RANK_DEPTH,
): QueryRanking {
  // Same error canonicalRank gives for an empty set (Math.min of nothing would be Infinity).
  if (q.correct.length === 0) throw new RangeError('canonicalRank: a query needs at least one correct corpus id');
  const top = topK(scores, idOrder, depth);
  const own = (i: number): OwnScore => ({ corpus_index: i, score: scores[i], rank: rankInScores(scores, idOrder, i) });
  // Each exact rank is an O(N) pass: compute the correct items' once and take the canonical rank from them.
  const correct = q.correct.map(own);
  return {
    query_id: q.query_id,
    top,
    topScores: Float64Array.from(top, (i) => scores[i]),
    canonical_rank: Math.min(...correct.map((c) => c.rank)),
    correct,
    distractors: q.distractors.map(own),
  };
}

/**
 * One configuration's ranking, prepared once (the BM25 index, the normalised corpus or its postings, the tie
 * order) and then computed for any range of queries. Every query's ranking depends only on that query and the
 * prepared corpus, so the slices of any partition, concatenated, are `rank(0, queries)`: the caller that must
 * not hold the thread for a whole configuration (scoring, a Temporal activity with a heartbeat timer) ranks in
 * slices and yields between them (activities/scoring/rankConfig.ts).
 */
export interface Ranker {
  /** How many queries, and corpus items each is scored against. */
  readonly queries: number;
  readonly corpus: number;
  /** Rankings of queries [from, to), in query order. */
  rank(from: number, to: number): QueryRanking[];
}

/** A Ranker's `rank(from, to)` takes a range of whole queries within [0, n]. */
export function checkRange(name: string, n: number, from: number, to: number): void {
  if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= n)) {
    throw new RangeError(`${name}: query range [${from}, ${to}) outside [0, ${n})`);
  }
}

/** Dense retriever: cosine of the query rows (same order as `queries`) against the corpus rows. */
export function denseRanker(
  queries: readonly RankQuery[],
  queryMatrix: DenseMatrix,
  corpusMatrix: DenseMatrix,
  corpusIds: readonly string[],
  depth = RANK_DEPTH,
  tieKey = DEFAULT_TIE_KEY,
): Ranker {
  checkShapes('rankDense', queries, queryMatrix, corpusMatrix, corpusIds);
  return rowsRanker('rankDense', cosineScorer(corpusMatrix), queries, queryMatrix, corpusIds, depth, tieKey);
}

/** Learned-sparse retriever (SPLADE): dot product of packed (term, weight) rows (core/ranking/sparse.ts). */
export function sparseRanker(
  queries: readonly RankQuery[],
  queryMatrix: DenseMatrix,
  corpusMatrix: DenseMatrix,
  corpusIds: readonly string[],
  depth = RANK_DEPTH,
  tieKey = DEFAULT_TIE_KEY,
): Ranker {
  checkShapes('rankSparse', queries, queryMatrix, corpusMatrix, corpusIds);
  return rowsRanker('rankSparse', sparseDotScorer(corpusMatrix), queries, queryMatrix, corpusIds, depth, tieKey);
}

function checkShapes(name: string, queries: readonly RankQuery[], queryMatrix: DenseMatrix, corpusMatrix: DenseMatrix, corpusIds: readonly string[]): void {
  if (queryMatrix.rows !== queries.length) throw new RangeError(`${name}: ${queries.length} queries but ${queryMatrix.rows} query vectors`);
  if (corpusMatrix.rows !== corpusIds.length) throw new RangeError(`${name}: ${corpusIds.length} corpus ids but ${corpusMatrix.rows} corpus vectors`);
}

/** The shared part of both: each query's row of scores summarised in the one tie order. */
function rowsRanker(
  name: string,
  scorer: RowScorer,
  queries: readonly RankQuery[],
  queryMatrix: DenseMatrix,
  corpusIds: readonly string[],
  depth: number,
  tieKey: string,
): Ranker {
  const idOrder = idOrderOf(corpusIds, tieKey);
  const d = queryMatrix.dim;
  return {
    queries: queries.length,
    corpus: corpusIds.length,
    rank(from, to) {
      checkRange(name, queries.length, from, to);
      const rows: DenseMatrix = { rows: to - from, dim: d, data: queryMatrix.data.subarray(from * d, to * d) };
      const out: QueryRanking[] = new Array(to - from);
      scorer(rows, (qi, row) => {
        out[qi] = summariseRow(queries[from + qi], row, idOrder, depth);
      });
      return out;
    },
  };
}

/** Lexical baseline: Okapi BM25 (core/bm25.ts, k1 = 1.5, b = 0.75) of the query text over corpus code. */
export function bm25Ranker(
  queries: readonly RankQuery[],
  corpus: readonly { id: string; text: string }[],
  depth = RANK_DEPTH,
  opts: { k1?: number; b?: number; tieKey?: string } = {},
): Ranker {
  const index = buildBm25Index(corpus, opts);
  const idOrder = idOrderOf(index.ids, opts.tieKey);
  return {
    queries: queries.length,
    corpus: corpus.length,
    rank(from, to) {
      checkRange('rankBm25', queries.length, from, to);
      return queries.slice(from, to).map((q) => summariseRow(q, index.scoreAll(q.text), idOrder, depth));
    },
  };
}

/** Every query ranked in one call (what a caller that may hold the thread uses: tests, benches). */
const whole = (r: Ranker): QueryRanking[] => r.rank(0, r.queries);

export const rankDense = (...args: Parameters<typeof denseRanker>): QueryRanking[] => whole(denseRanker(...args));
export const rankSparse = (...args: Parameters<typeof sparseRanker>): QueryRanking[] => whole(sparseRanker(...args));
export const rankBm25 = (...args: Parameters<typeof bm25Ranker>): QueryRanking[] => whole(bm25Ranker(...args));
