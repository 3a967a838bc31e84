/**
 * Learned-sparse retrieval (SPLADE): a text is a weight per vocabulary term, almost all zero; a query scores a
 * document by the dot product over the terms both have. Vectors travel through the same cache, matrices and
 * scoring path as dense ones, packed as a fixed-length Float32 row of (term id, weight) pairs:
 *   [id0, w0, id1, w1, ...]  strongest term first (ties by id), unused pairs (0, 0)
 * Term ids are exact in float32 up to 2^24 (a BERT vocabulary has 30,522). A row keeps at most `dim / 2` terms:
 * a text with more non-zero terms loses its weakest (pruning, as SPLADE indexes commonly do); the provider reports
 * how many it pruned.
 */
import type { DenseMatrix, RowScorer } from './cosine.ts';

/** Packs one dense term-weight row (length = vocabulary) into `terms` (id, weight) pairs; returns the row and how many non-zero terms did not fit. */
export function packTopTerms(weights: ArrayLike<number>, terms: number): { row: Float32Array; pruned: number } {
  const ids: number[] = [];
  for (let t = 0; t < weights.length; t++) if (weights[t] > 0) ids.push(t);
  ids.sort((a, b) => weights[b] - weights[a] || a - b);
  const row = new Float32Array(2 * terms);
  const kept = Math.min(terms, ids.length);
  for (let i = 0; i < kept; i++) {
    row[2 * i] = ids[i];
    row[2 * i + 1] = weights[ids[i]];
  }
  return { row, pruned: ids.length - kept };
}

/** The (term, weight) pairs of one packed row with a non-zero weight. */
export function unpackTerms(data: Float32Array, offset: number, dim: number): { term: number; weight: number }[] {
  const out: { term: number; weight: number }[] = [];
  for (let k = 0; k < dim; k += 2) {
    const w = data[offset + k + 1];
    if (w !== 0) out.push({ term: data[offset + k], weight: w });
  }
  return out;
}

/**
 * Calls `onRow(q, scores)` for every query in order with its sparse dot product against every corpus row (a
 * Float64Array reused between calls: copy what you keep). An inverted index over the corpus (term -> postings)
 * makes each query cost the postings of its own terms, not the corpus size times the vocabulary.
 */
export function sparseDotRows(queries: DenseMatrix, corpus: DenseMatrix, onRow: (q: number, scores: Float64Array) => void): void {
  sparseDotScorer(corpus)(queries, onRow);
}

/** The corpus's postings built once, for scoring any number of query blocks against them (cosine.ts cosineScorer). */
export function sparseDotScorer(corpus: DenseMatrix): RowScorer {
  if (corpus.dim % 2) throw new RangeError(`sparse: packed rows need an even length (got corpus ${corpus.dim})`);
  // Postings in CSR form, straight from the packed rows: count per term, prefix sums, then fill.
  const C = corpus.data;
  const dim = corpus.dim;
  let vocab = 0;
  for (let k = 0; k < C.length; k += 2) if (C[k + 1] !== 0) vocab = Math.max(vocab, C[k] + 1);
  const start = new Int32Array(vocab + 1);
  for (let k = 0; k < C.length; k += 2) if (C[k + 1] !== 0) start[C[k] + 1]++;
  for (let t = 0; t < vocab; t++) start[t + 1] += start[t];
  const fill = start.slice(0, vocab);
  const docs = new Int32Array(start[vocab]);
  const ws = new Float64Array(start[vocab]);
  for (let k = 0; k < C.length; k += 2) {
    if (C[k + 1] === 0) continue;
    const at = fill[C[k]]++;
    docs[at] = Math.floor(k / dim);
    ws[at] = C[k + 1];
  }
  const scores = new Float64Array(corpus.rows);
  return (queries, onRow) => {
    if (queries.dim % 2) throw new RangeError(`sparse: packed rows need an even length (got queries ${queries.dim})`);
    for (let q = 0; q < queries.rows; q++) {
      scores.fill(0);
      for (const { term, weight } of unpackTerms(queries.data, q * queries.dim, queries.dim)) {
        if (term >= vocab) continue;
        for (let i = start[term]; i < start[term + 1]; i++) scores[docs[i]] += weight * ws[i];
      }
      onRow(q, scores);
    }
  };
}
