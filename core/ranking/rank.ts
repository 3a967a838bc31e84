import { buildBm25Index } from '../bm25.ts';
import { rankInScores } from '../metrics/canonical_rank.ts';
import { cosineRows, type DenseMatrix } from './cosine.ts';
import { sparseDotRows } from './sparse.ts';
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

/** Dense retriever: cosine of the query rows (same order as `queries`) against the corpus rows. */
export function rankDense(
  queries: readonly RankQuery[],
  queryMatrix: DenseMatrix,
  corpusMatrix: DenseMatrix,
  corpusIds: readonly string[],
  depth = RANK_DEPTH,
  tieKey = DEFAULT_TIE_KEY,
): QueryRanking[] {
  return rankByRows('rankDense', cosineRows, queries, queryMatrix, corpusMatrix, corpusIds, depth, tieKey);
}

/** Learned-sparse retriever (SPLADE): dot product of packed (term, weight) rows (core/ranking/sparse.ts). */
export function rankSparse(
  queries: readonly RankQuery[],
  queryMatrix: DenseMatrix,
  corpusMatrix: DenseMatrix,
  corpusIds: readonly string[],
  depth = RANK_DEPTH,
  tieKey = DEFAULT_TIE_KEY,
): QueryRanking[] {
  return rankByRows('rankSparse', sparseDotRows, queries, queryMatrix, corpusMatrix, corpusIds, depth, tieKey);
}

/** The shared part of both: shape checks, then each query's row of scores summarised in the one tie order. */
function rankByRows(
  name: string,
  scoreRows: typeof cosineRows,
  queries: readonly RankQuery[],
  queryMatrix: DenseMatrix,
  corpusMatrix: DenseMatrix,
  corpusIds: readonly string[],
  depth: number,
  tieKey: string,
): QueryRanking[] {
  if (queryMatrix.rows !== queries.length) throw new RangeError(`${name}: ${queries.length} queries but ${queryMatrix.rows} query vectors`);
  if (corpusMatrix.rows !== corpusIds.length) throw new RangeError(`${name}: ${corpusIds.length} corpus ids but ${corpusMatrix.rows} corpus vectors`);
  const idOrder = idOrderOf(corpusIds, tieKey);
  const out: QueryRanking[] = new Array(queries.length);
  scoreRows(queryMatrix, corpusMatrix, (qi, row) => {
    out[qi] = summariseRow(queries[qi], row, idOrder, depth);
  });
  return out;
}

/** Lexical baseline: Okapi BM25 (core/bm25.ts, k1 = 1.5, b = 0.75) of the query text over corpus code. */
export function rankBm25(
  queries: readonly RankQuery[],
  corpus: readonly { id: string; text: string }[],
  depth = RANK_DEPTH,
  opts: { k1?: number; b?: number; tieKey?: string } = {},
): QueryRanking[] {
  const index = buildBm25Index(corpus, opts);
  const ids = corpus.map((d) => d.id);
  const idOrder = idOrderOf(ids, opts.tieKey);
  return queries.map((q) => summariseRow(q, index.scoreAll(q.text), idOrder, depth));
}
