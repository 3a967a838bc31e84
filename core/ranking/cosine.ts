/**
 * Cosine similarity of every query against every corpus item, as blocked products of L2-normalised Float32
 * matrices. No BLAS in Node without a native addon, so this is a cache-blocked triple loop: a block of
 * queries is held against a block of corpus rows (~1 MB of Float32), each pair's dot product runs over
 * contiguous memory, and a finished block of score rows is handed to `onRow`. Accumulation is in float64
 * (JS numbers), which makes scores independent of block sizes (tested).
 */
export interface DenseMatrix {
  rows: number;
  dim: number;
  /** Row-major, rows × dim. */
  data: Float32Array;
}

/** A copy with every row scaled to unit L2 norm; an all-zero row stays zero (cosine 0 with everything). */
export function l2Normalize(m: DenseMatrix): DenseMatrix {
  const out = new Float32Array(m.data.length);
  for (let r = 0; r < m.rows; r++) {
    const base = r * m.dim;
    let s = 0;
    for (let c = 0; c < m.dim; c++) s += m.data[base + c] * m.data[base + c];
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let c = 0; c < m.dim; c++) out[base + c] = m.data[base + c] * inv;
  }
  return { rows: m.rows, dim: m.dim, data: out };
}

export interface CosineOptions {
  queryBlock?: number;
  corpusBlock?: number;
}

/** Scores a block of query rows against a corpus prepared once (cosineScorer). */
export type RowScorer = (queries: DenseMatrix, onRow: (q: number, scores: Float64Array) => void) => void;

/**
 * Calls `onRow(q, scores)` for every query q in order, with a Float64Array of its cosine to every corpus row
 * (reused between calls: copy what you keep).
 */
export function cosineRows(
  queries: DenseMatrix,
  corpus: DenseMatrix,
  onRow: (q: number, scores: Float64Array) => void,
  opts: CosineOptions = {},
): void {
  cosineScorer(corpus, opts)(queries, onRow);
}

/**
 * The corpus normalised once, for scoring any number of query blocks against it (scoring ranks a configuration
 * in slices of queries): each score depends only on its query row and its corpus row, so slices give the scores
 * of one whole call.
 */
export function cosineScorer(corpus: DenseMatrix, opts: CosineOptions = {}): RowScorer {
  const C = l2Normalize(corpus).data;
  const d = corpus.dim;
  const nc = corpus.rows;
  const qb = Math.max(1, opts.queryBlock ?? 32);
  const cb = Math.max(1, opts.corpusBlock ?? Math.max(16, Math.floor(262144 / Math.max(1, d))));
  // The block of score rows, allocated at the first call and reused by every later one.
  let buf: Float64Array | null = null;
  const row = new Float64Array(nc);
  return (queries, onRow) => {
    if (queries.dim !== corpus.dim) {
      throw new RangeError(`cosine: query dim ${queries.dim} differs from corpus dim ${corpus.dim}`);
    }
    const Q = l2Normalize(queries).data;
    const block = (buf ??= new Float64Array(qb * nc));
    for (let q0 = 0; q0 < queries.rows; q0 += qb) {
      const q1 = Math.min(queries.rows, q0 + qb);
      for (let c0 = 0; c0 < nc; c0 += cb) {
        const c1 = Math.min(nc, c0 + cb);
        for (let q = q0; q < q1; q++) {
          const qo = q * d;
          const bo = (q - q0) * nc;
          let c = c0;
          // Four corpus rows per pass: each query value is loaded once for four independent sums (register
          // blocking; about twice as fast as one dot product at a time in V8).
          for (; c + 3 < c1; c += 4) {
            const o0 = c * d;
            const o1 = o0 + d;
            const o2 = o1 + d;
            const o3 = o2 + d;
            let s0 = 0;
            let s1 = 0;
            let s2 = 0;
            let s3 = 0;
            for (let k = 0; k < d; k++) {
              const x = Q[qo + k];
              s0 += x * C[o0 + k];
              s1 += x * C[o1 + k];
              s2 += x * C[o2 + k];
              s3 += x * C[o3 + k];
            }
            block[bo + c] = s0;
            block[bo + c + 1] = s1;
            block[bo + c + 2] = s2;
            block[bo + c + 3] = s3;
          }
          for (; c < c1; c++) {
            const co = c * d;
            let s = 0;
            for (let k = 0; k < d; k++) s += Q[qo + k] * C[co + k];
            block[bo + c] = s;
          }
        }
      }
      for (let q = q0; q < q1; q++) {
        row.set(block.subarray((q - q0) * nc, (q - q0 + 1) * nc));
        onRow(q, row);
      }
    }
  };
}
