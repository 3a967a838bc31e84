import { Xoshiro128 } from './prng.ts';
import { packColumns, planPacking, unpackSums } from './packing.ts';
import { simdKernel } from './simdKernel.ts';

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
export function drawCounts(rng: Xoshiro128, n: number, counts: Uint32Array | Float64Array): void {
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

/** Replicates drawn per block: their counts (BLOCK × n doubles, 512 KB at n = 1,000) stay in cache while every column is summed. */
const BLOCK = 64;

/**
 * The unpacked kernel, as a blocked matrix product: for a block of replicates, sums[r, c] = Σ_j counts[r, j] ·
 * X[j, c], computed four replicates × four columns at a time in WebAssembly SIMD registers (simdKernel.ts). Each
 * column is then read once per block instead of once per replicate (the per-replicate row loop streamed the whole
 * matrix from memory 5,000 times), and each sum is accumulated over j in increasing order from +0, exactly as the
 * per-replicate loop did, so the result is bit-identical: adding 0 · x for an undrawn query changes nothing when x
 * is finite. A column with a non-finite value (0 · NaN is NaN) keeps the per-replicate loop that skips undrawn
 * queries; a block's last replicates and columns (fewer than four) are summed one at a time the same way.
 */
export function denseColumnSums(input: BootstrapInput, replicates: number, seed: number): Float64Array {
  const { X, n, columns: m } = input;
  const R = replicates;
  const rng = new Xoshiro128(seed);
  // The kernel's memory: replicate pairs' counts interleaved (BLOCK × n doubles), 16 sums out, then the matrix.
  const { kernel, memory } = simdKernel();
  const pairBytes = n * 16;
  const outAt = BLOCK * n * 8;
  const xAt = outAt + 128;
  const need = xAt + n * m * 8;
  if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
  const heap = new Float64Array(memory.buffer);
  // Column-major, so the product's inner loop reads both operands contiguously.
  const Xc = heap.subarray(xAt / 8, xAt / 8 + n * m);
  const finite: number[] = [];
  const other: number[] = [];
  for (let c = 0; c < m; c++) {
    let ok = true;
    for (let j = 0; j < n; j++) {
      const v = X[j * m + c];
      Xc[c * n + j] = v;
      if (!Number.isFinite(v)) ok = false;
    }
    (ok ? finite : other).push(c);
  }
  const out = new Float64Array(m * R);
  const counts = new Float64Array(BLOCK * n);
  const f4 = finite.length - (finite.length % 4);
  const o = outAt / 8;
  for (let r0 = 0; r0 < R; r0 += BLOCK) {
    const rb = Math.min(BLOCK, R - r0);
    for (let r = 0; r < rb; r++) {
      const base = r * n;
      drawCounts(rng, n, counts.subarray(base, base + n));
    }
    for (let p = 0; 2 * p + 1 < rb; p++) {
      const a = 2 * p * n;
      const b = a + n;
      const h = 2 * p * n;
      for (let j = 0; j < n; j++) {
        heap[h + 2 * j] = counts[a + j];
        heap[h + 2 * j + 1] = counts[b + j];
      }
    }
    for (let i = 0; i < f4; i += 4) {
      let r = 0;
      for (; r + 4 <= rb; r += 4) {
        const c01 = (r / 2) * pairBytes;
        kernel(c01, c01 + pairBytes, xAt + finite[i] * n * 8, xAt + finite[i + 1] * n * 8, xAt + finite[i + 2] * n * 8, xAt + finite[i + 3] * n * 8, n, outAt);
        for (let q = 0; q < 4; q++) {
          const at = finite[i + q] * R + r0 + r;
          out[at] = heap[o + 4 * q];
          out[at + 1] = heap[o + 4 * q + 1];
          out[at + 2] = heap[o + 4 * q + 2];
          out[at + 3] = heap[o + 4 * q + 3];
        }
      }
      for (; r < rb; r++) {
        for (let q = 0; q < 4; q++) {
          const x = finite[i + q] * n;
          const k = r * n;
          let a = 0;
          for (let j = 0; j < n; j++) a += counts[k + j] * Xc[x + j];
          out[finite[i + q] * R + r0 + r] = a;
        }
      }
    }
    const rest = [...finite.slice(f4), ...other];
    for (const c of rest) {
      const x = c * n;
      for (let r = 0; r < rb; r++) {
        const k = r * n;
        let a = 0;
        for (let j = 0; j < n; j++) {
          const w = counts[k + j];
          if (w !== 0) a += w * Xc[x + j];
        }
        out[c * R + r0 + r] = a;
      }
    }
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
