import { Xoshiro128 } from './prng.ts';
import { packColumns, planPacking, unpackSums } from './packing.ts';

/**
 * Query-level bootstrap (Efron 1979), vectorised across every statistic at once.
 *
 * Every reported number is a ratio of column sums over queries, sum(num) / sum(den): a plain mean has a
 * denominator column of ones; a conditional share (e.g. "of the rank-1 misses, how many are the query's own
 * distractors") has the condition's indicator as denominator. One replicate is one multinomial resample of
 * the n queries, drawn ONCE and applied to every column of every configuration, which (a) makes replicates
 * paired across configurations, so a paired-bootstrap difference is just the difference of two replicate
 * statistics, and (b) turns the work into counts × matrix: per replicate, sum over the ~63% of queries drawn
 * at least once of count_j * X[j, :], a contiguous row of all columns.
 *
 * Replicate r uses the r-th block of n draws `rng.nextInt(n)` from `new Xoshiro128(seed)`; the straightforward
 * per-statistic implementation in bench/stats.ts re-draws the same stream and must agree.
 */
export interface BootstrapInput {
  /** Query-major matrix: X[j * columns + c] is column c's value for query j. */
  X: Float64Array;
  n: number;
  columns: number;
}

/** Resampling counts of one replicate: counts[j] = how many of the n draws picked query j. */
export function drawCounts(rng: Xoshiro128, n: number, counts: Uint32Array): void {
  counts.fill(0);
  for (let t = 0; t < n; t++) counts[rng.nextInt(n)]++;
}

/**
 * Column sums for every replicate, column-major: out[c * replicates + r]. Equal to summing X[idx, c] over the
 * replicate's drawn indices. Small-integer columns travel bit-packed several to a float64 (packing.ts), which
 * cuts the inner loop 3-5× on report data and is exact.
 */
export function bootstrapColumnSums(input: BootstrapInput, replicates: number, seed: number): Float64Array {
  const { X, n, columns: m } = input;
  if (X.length !== n * m) throw new RangeError(`bootstrap: X has ${X.length} values, expected ${n}×${m}`);
  if (n === 0) throw new RangeError('bootstrap: no queries');
  const cols: Float64Array[] = [];
  for (let c = 0; c < m; c++) {
    const col = new Float64Array(n);
    for (let j = 0; j < n; j++) col[j] = X[j * m + c];
    cols.push(col);
  }
  return bootstrapSumsOfColumns(cols, n, replicates, seed);
}

/** The same, from columns (each of length n): what the statistics engine holds. */
export function bootstrapSumsOfColumns(cols: readonly Float64Array[], n: number, replicates: number, seed: number): Float64Array {
  if (n === 0) throw new RangeError('bootstrap: no queries');
  const plan = planPacking(cols, n);
  const packed = packColumns(cols, n, plan);
  const sums = denseColumnSums({ X: packed, n, columns: plan.slots.length }, replicates, seed);
  return unpackSums(sums, replicates, plan, cols.length);
}

/** The unpacked kernel: per replicate, acc += count_j * X[j, :] over the queries drawn at least once. */
export function denseColumnSums(input: BootstrapInput, replicates: number, seed: number): Float64Array {
  const { X, n, columns: m } = input;
  const rng = new Xoshiro128(seed);
  const counts = new Uint32Array(n);
  const acc = new Float64Array(m);
  const out = new Float64Array(m * replicates);
  const m4 = m - (m % 4);
  for (let r = 0; r < replicates; r++) {
    drawCounts(rng, n, counts);
    acc.fill(0);
    for (let j = 0; j < n; j++) {
      const c = counts[j];
      if (c === 0) continue;
      const base = j * m;
      // Unrolled by four: fewer loop branches per multiply-add (no SIMD in JS); measurably faster in V8.
      let q = 0;
      for (; q < m4; q += 4) {
        acc[q] += c * X[base + q];
        acc[q + 1] += c * X[base + q + 1];
        acc[q + 2] += c * X[base + q + 2];
        acc[q + 3] += c * X[base + q + 3];
      }
      for (; q < m; q++) acc[q] += c * X[base + q];
    }
    for (let q = 0; q < m; q++) out[q * replicates + r] = acc[q];
  }
  return out;
}

/** Replicate values of the ratio statistic sum(num)/sum(den); NaN where a replicate's denominator is 0. */
export function replicateRatios(sums: Float64Array, replicates: number, num: number, den: number): Float64Array {
  const out = new Float64Array(replicates);
  const a = num * replicates;
  const b = den * replicates;
  for (let r = 0; r < replicates; r++) {
    const d = sums[b + r];
    out[r] = d === 0 ? NaN : sums[a + r] / d;
  }
  return out;
}
