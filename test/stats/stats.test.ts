import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Xoshiro128 } from '../../core/stats/prng.ts';
import { quantileSorted, percentileInterval } from '../../core/stats/quantile.ts';
import { bootstrapColumnSums, drawCounts, replicateRatios } from '../../core/stats/bootstrap.ts';
import { mcnemarExact, discordantCounts } from '../../core/stats/mcnemar.ts';
import { holmAdjust } from '../../core/stats/holm.ts';
import { pairedBootstrapDifference } from '../../core/stats/paired_bootstrap.ts';

const close = (a: number, b: number, tol = 1e-12, msg = '') =>
  assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${msg} ${a} vs ${b}`);

test('xoshiro128** stream matches an independent Python implementation', () => {
  // Produced by a separate Python big-int implementation of SplitMix32(lowbias32) seeding + xoshiro128** 1.1
  // (written from the published algorithm, run once with python3); first outputs for seeds 42 and 0.
  const g = new Xoshiro128(42);
  assert.deepEqual(Array.from({ length: 6 }, () => g.nextU32()), [660444221, 3652823732, 77672526, 910233633, 2297337756, 3786072677]);
  const h = new Xoshiro128(0);
  assert.deepEqual(Array.from({ length: 3 }, () => h.nextU32()), [1789933344, 44971166, 2521387044]);
  assert.throws(() => new Xoshiro128(-1), /seed/);
  assert.throws(() => new Xoshiro128(1.5), /seed/);
});

test('nextInt is uniform over [0, n) (chi-square far below the 0.1% critical value)', () => {
  const g = new Xoshiro128(7);
  const n = 10;
  const draws = 200_000;
  const counts = new Array(n).fill(0);
  for (let i = 0; i < draws; i++) counts[g.nextInt(n)]++;
  const e = draws / n;
  const chi2 = counts.reduce((s, c) => s + (c - e) ** 2 / e, 0);
  assert.ok(chi2 < 27.88, `chi2=${chi2} (df=9, 0.999 quantile 27.88)`);
  assert.throws(() => g.nextInt(0), /nextInt/);
});

test('quantile type 7 matches numpy.quantile', () => {
  // numpy.quantile([3,1,4,1,5,9,2,6], [0.025, 0.975, 0.5]) -> [1.0, 8.475, 3.5] (numpy 2, default method).
  const s = Float64Array.from([3, 1, 4, 1, 5, 9, 2, 6]).sort();
  close(quantileSorted(s, 0.025), 1.0);
  close(quantileSorted(s, 0.975), 8.475);
  close(quantileSorted(s, 0.5), 3.5);
  assert.deepEqual(percentileInterval(Float64Array.from([NaN, NaN])), null);
  const ci = percentileInterval(Float64Array.from([NaN, 2, 1, NaN, 3]))!;
  close(ci[0], 1.05); // NaNs dropped: quantile of [1,2,3] at 0.025 = 1 + 0.05*(2-1)
  close(ci[1], 2.95);
});

test('bootstrap column sums equal gathering each replicate from the same draws', () => {
  const n = 37;
  const m = 3;
  const X = new Float64Array(n * m);
  for (let j = 0; j < n; j++) {
    X[j * m] = j % 2;
    X[j * m + 1] = j / 7;
    X[j * m + 2] = 1;
  }
  const R = 50;
  const sums = bootstrapColumnSums({ X, n, columns: m }, R, 123);
  const g = new Xoshiro128(123);
  for (let r = 0; r < R; r++) {
    const s = [0, 0, 0];
    for (let t = 0; t < n; t++) {
      const j = g.nextInt(n);
      for (let q = 0; q < m; q++) s[q] += X[j * m + q];
    }
    for (let q = 0; q < m; q++) close(sums[q * R + r], s[q], 1e-12, `r=${r} q=${q}`);
    assert.equal(sums[2 * R + r], n); // the ones column always sums to n
  }
  const counts = new Uint32Array(n);
  drawCounts(new Xoshiro128(1), n, counts);
  assert.equal(counts.reduce((a, b) => a + b, 0), n);
});

test('bootstrap CI of a Bernoulli(0.5) mean has the normal-theory width', () => {
  // n = 1000 queries, half pass: SE = sqrt(0.25/1000) = 0.01581; 95% width ≈ 2 * 1.96 * SE = 0.0620.
  const n = 1000;
  const X = new Float64Array(n * 2);
  for (let j = 0; j < n; j++) {
    X[j * 2] = j < 500 ? 1 : 0;
    X[j * 2 + 1] = 1;
  }
  const R = 5000;
  const sums = bootstrapColumnSums({ X, n, columns: 2 }, R, 2024);
  const ci = percentileInterval(replicateRatios(sums, R, 0, 1))!;
  const width = ci[1] - ci[0];
  assert.ok(Math.abs(width - 0.062) < 0.006, `width ${width}`);
  assert.ok(ci[0] < 0.5 && ci[1] > 0.5);
  // Same seed, same answer; different seed, (almost surely) different replicates.
  const again = bootstrapColumnSums({ X, n, columns: 2 }, R, 2024);
  assert.deepEqual(Array.from(again), Array.from(sums));
  const other = bootstrapColumnSums({ X, n, columns: 2 }, R, 2025);
  assert.notDeepEqual(Array.from(other.subarray(0, R)), Array.from(sums.subarray(0, R)));
});

test('ratio replicates are NaN where the denominator resampled to zero', () => {
  // 3 queries; denominator indicator only on query 0: P(query 0 not drawn) = (2/3)^3 ≈ 0.30.
  const X = Float64Array.from([1, 1, 0, 0, 0, 0]);
  const R = 2000;
  const sums = bootstrapColumnSums({ X, n: 3, columns: 2 }, R, 9);
  const rat = replicateRatios(sums, R, 0, 1);
  const nan = rat.filter((v) => Number.isNaN(v)).length;
  assert.ok(Math.abs(nan / R - 8 / 27) < 0.04, `NaN share ${nan / R}`);
  assert.ok(rat.every((v) => Number.isNaN(v) || v === 1));
});

test('exact McNemar matches statsmodels mcnemar(exact=True)', () => {
  // Reference: statsmodels 0.15.0 `mcnemar(np.array([[5, b], [c, 7]]), exact=True).pvalue`, run once in a
  // throwaway venv (pip install statsmodels); the diagonal does not enter the exact test.
  const ref: [number, number, number][] = [
    [0, 0, 1.0],
    [3, 0, 0.25], // hand: 2 * (1/2)^3
    [5, 1, 0.21875], // hand: 2 * (1 + 6) / 64
    [10, 2, 0.03857421875],
    [12, 14, 0.8450189828872681],
    [25, 40, 0.08168153394154003],
    [180, 220, 0.05104022312914814],
    [1, 1, 1.0],
    [7, 3, 0.34375],
    [450, 520, 0.02667770276676101],
  ];
  for (const [b, c, p] of ref) close(mcnemarExact(b, c).p_value, p, 1e-9, `b=${b} c=${c}`);
  assert.equal(mcnemarExact(3, 9).p_value, mcnemarExact(9, 3).p_value);
  // Large n: 2 * 2^-5000 underflows to 0 (not NaN); b≈c near 2,000 gives a moderate p, not NaN/Infinity.
  assert.equal(mcnemarExact(0, 5000).p_value, 0);
  const mid = mcnemarExact(2000, 2100).p_value;
  assert.ok(mid > 0.1 && mid < 0.2, `p=${mid}`); // normal approx: z = 99/sqrt(4100) = 1.546 -> p ≈ 0.122
  assert.throws(() => mcnemarExact(-1, 2), /non-negative/);
  assert.deepEqual(discordantCounts([1, 1, 0, 0, 1], [1, 0, 1, 0, 0]), { b: 2, c: 1 });
});

test('Holm adjustment matches statsmodels multipletests(method="holm")', () => {
  // statsmodels.stats.multitest.multipletests(p, method='holm')[1], same throwaway venv.
  const a = holmAdjust([0.01, 0.04, 0.03, 0.005, 0.2]);
  [0.04, 0.09, 0.09, 0.025, 0.2].forEach((v, i) => close(a[i], v));
  const b = holmAdjust([0.02, 0.02, 0.5, 0.001]);
  [0.06, 0.06, 0.5, 0.004].forEach((v, i) => close(b[i], v));
  const c = holmAdjust([0.5, NaN, 0.01]);
  close(c[0], 0.5);
  assert.ok(Number.isNaN(c[1]));
  close(c[2], 0.02); // family size 2: NaN is not a hypothesis
});

test('paired bootstrap difference: interval of replicate differences, observed difference', () => {
  const A = Float64Array.from({ length: 101 }, (_, i) => 0.5 + i / 1000);
  const B = Float64Array.from({ length: 101 }, () => 0.5);
  const d = pairedBootstrapDifference(0.56, 0.5, A, B);
  close(d.diff, 0.06);
  close(d.ci_low!, 0.0025); // type-7 quantile of {0, .001, ..., .1} at 0.025: h = 2.5 -> 0.0025
  close(d.ci_high!, 0.0975);
  close(d.share_a_better, 100 / 101);
});

test('percentile interval by selection equals the one by sorting (ties, NaN, small n)', async () => {
  const { percentileIntervalSelect } = await import('../../core/stats/quantile_select.ts');
  const g = new Xoshiro128(5);
  for (const len of [1, 2, 3, 7, 40, 1000, 5001]) {
    for (const distinct of [2, 5, 1_000_000]) {
      const v = Float64Array.from({ length: len }, () => (g.nextInt(distinct) === 0 && len > 3 ? NaN : g.nextInt(distinct) / 7));
      for (const alpha of [0.05, 0.1, 0.5]) {
        assert.deepEqual(percentileIntervalSelect(v, alpha), percentileInterval(v, alpha), `len=${len} distinct=${distinct} alpha=${alpha}`);
      }
    }
  }
});

test('bit-packed bootstrap sums are exact, including columns too wide to pack', async () => {
  const { planPacking } = await import('../../core/stats/packing.ts');
  const { denseColumnSums } = await import('../../core/stats/bootstrap.ts');
  const n = 500;
  const g = new Xoshiro128(11);
  const cols = [
    () => g.nextInt(2), // binary: 9 bits for sums up to 500
    () => g.nextInt(4) / 3, // execp@3-like: scale 3
    () => 1 / (1 + g.nextInt(10)), // reciprocal rank: scale 2520
    () => g.nextInt(5000), // canonical rank: 22 bits
    () => Math.sqrt(g.nextInt(9)), // irrational: stays raw
    () => 2 ** 50, // too wide: stays raw
  ];
  const m = cols.length;
  const X = new Float64Array(n * m);
  for (let j = 0; j < n; j++) cols.forEach((f, c) => (X[j * m + c] = f()));
  const plan = planPacking(Array.from({ length: m }, (_, c) => Float64Array.from({ length: n }, (_, j) => X[j * m + c])), n);
  assert.ok(plan.slots.length < m, 'some columns share a slot');
  assert.equal(plan.raw.filter(Boolean).length, 2);
  const R = 30;
  const packed = bootstrapColumnSums({ X, n, columns: m }, R, 77);
  const plain = denseColumnSums({ X, n, columns: m }, R, 77);
  for (let i = 0; i < packed.length; i++) close(packed[i], plain[i], 1e-12, `i=${i}`);
});

test('the blocked bootstrap kernel (WebAssembly SIMD, four replicates × four columns) is bit-identical to the per-replicate loop: floats, negatives, NaN and Infinity in some columns, blocks cut short', async () => {
  const { denseColumnSums } = await import('../../core/stats/bootstrap.ts');
  // The per-replicate loop the blocked product replaced: each replicate's counts, then acc += count · row for the drawn queries.
  const perReplicate = (X: Float64Array, n: number, m: number, R: number, seed: number) => {
    const rng = new Xoshiro128(seed);
    const counts = new Uint32Array(n);
    const out = new Float64Array(m * R);
    for (let r = 0; r < R; r++) {
      drawCounts(rng, n, counts);
      const acc = new Float64Array(m);
      for (let j = 0; j < n; j++) if (counts[j]) for (let q = 0; q < m; q++) acc[q] += counts[j] * X[j * m + q];
      for (let q = 0; q < m; q++) out[q * R + r] = acc[q];
    }
    return out;
  };
  const g = new Xoshiro128(8);
  const u = () => g.nextU32() / 2 ** 32;
  for (const [n, m, R] of [[37, 7, 131], [200, 10, 64], [1, 3, 5], [300, 41, 70]]) {
    const X = new Float64Array(n * m);
    for (let j = 0; j < n; j++) {
      for (let c = 0; c < m; c++) {
        const kind = c % 5;
        X[j * m + c] = kind === 0 ? u() : kind === 1 ? -u() * 1e6 : kind === 2 ? 1 / (1 + j) : kind === 3 ? (j % 11 === 3 ? NaN : u()) : j === 0 ? Infinity : u() - 0.5;
      }
    }
    const got = denseColumnSums({ X, n, columns: m }, R, 99);
    const want = perReplicate(X, n, m, R, 99);
    for (let i = 0; i < want.length; i++) assert.ok(Object.is(got[i], want[i]), `n=${n} m=${m} R=${R} i=${i}: ${got[i]} !== ${want[i]}`);
  }
});
