import { idOrderOf } from './ranking/topk.ts';
import { tokenizeCode } from './tokenize.ts';

/**
 * Okapi BM25 over code-aware tokens (`tokenizeCode`).
 *
 *   score(D, Q) = Σ_{t ∈ Q} idf(t) · tf(t,D)·(k1+1) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl))
 *   idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
 *
 * The idf is Lucene's (BM25Similarity) form, which never goes negative; the classic Robertson–Spärck Jones
 * form ln((N−n+0.5)/(n+0.5)) gives negative weights to terms in more than half the documents, which would
 * make matching a common term *lower* a document's score. Query tokens count with multiplicity (a term
 * repeated in the query adds its contribution again), as in rank_bm25 and a Lucene query of repeated terms.
 * Defaults k1 = 1.5, b = 0.75 as in the paper's BM25 baseline.
 *
 * `search` ranks every document (zero scores included, so a top-k is always k long when N ≥ k); exact ties
 * break in the project's keyed tie order (core/ranking/topk.ts `idOrderOf`, SHA-256 of `tieKey` and the id),
 * the same order the scorer's rankings use: deterministic for a key, and blind to what an id says (id
 * ascending would hand every tie to `<q>_canonical` over `<q>_d1`).
 */
export interface Bm25Options {
  k1?: number;
  b?: number;
  tokenize?: (text: string) => string[];
  /** Key of the tie order (core/ranking/tieKey.ts); default DEFAULT_TIE_KEY. */
  tieKey?: string;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

export interface Bm25Index {
  readonly size: number;
  readonly ids: readonly string[];
  search(query: string, topK: number): Bm25Hit[];
  /** Scores for every document, in the order the documents were given. */
  scoreAll(query: string): Float64Array;
}

export function buildBm25Index(docs: readonly { id: string; text: string }[], opts: Bm25Options = {}): Bm25Index {
  const k1 = opts.k1 ?? 1.5;
  const b = opts.b ?? 0.75;
  const tokenize = opts.tokenize ?? tokenizeCode;
  if (!(k1 >= 0) || !(b >= 0 && b <= 1)) throw new Error(`bm25: need k1 >= 0 and 0 <= b <= 1 (got k1=${k1}, b=${b})`);

  const ids = docs.map((d) => d.id);
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new Error(`bm25: duplicate document id ${JSON.stringify(id)}`);
    seen.add(id);
  }
  const n = docs.length;
  const lengths = new Float64Array(n);
  // term -> parallel arrays of (doc index, term frequency)
  const postings = new Map<string, { docs: number[]; tfs: number[] }>();
  docs.forEach((d, i) => {
    const tokens = tokenize(d.text);
    lengths[i] = tokens.length;
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      let p = postings.get(t);
      if (!p) postings.set(t, (p = { docs: [], tfs: [] }));
      p.docs.push(i);
      p.tfs.push(c);
    }
  });
  const avgdl = n ? lengths.reduce((a, x) => a + x, 0) / n : 0;
  // Precompute the per-document length normaliser k1·(1 − b + b·|D|/avgdl).
  const norm = new Float64Array(n);
  for (let i = 0; i < n; i++) norm[i] = k1 * (1 - b + (avgdl > 0 ? (b * lengths[i]) / avgdl : 0));
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

  function scoreAll(query: string): Float64Array {
    const scores = new Float64Array(n);
    for (const t of tokenize(query)) {
      const p = postings.get(t);
      if (!p) continue;
      const w = idf(p.docs.length);
      for (let j = 0; j < p.docs.length; j++) {
        const tf = p.tfs[j];
        scores[p.docs[j]] += (w * (tf * (k1 + 1))) / (tf + norm[p.docs[j]]);
      }
    }
    return scores;
  }

  // Computed on the first search only: scoring (scoreAll) never needs it.
  let tieOrder: Int32Array | undefined;
  function search(query: string, topK: number): Bm25Hit[] {
    const scores = scoreAll(query);
    tieOrder ??= idOrderOf(ids, opts.tieKey);
    const ties = tieOrder;
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, c) => scores[c] - scores[a] || ties[a] - ties[c]);
    return order.slice(0, Math.max(0, topK)).map((i) => ({ id: ids[i], score: scores[i] }));
  }

  return { size: n, ids, search, scoreAll };
}
