/**
 * Quantile of sorted data with linear interpolation between order statistics: Hyndman & Fan type 7, the
 * default of numpy.quantile / R's quantile, so our bootstrap percentiles match what a reader recomputes
 * with numpy from the same replicates. `sorted` must be ascending and non-empty.
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantileSorted: empty input');
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantileSorted: p must be in [0, 1], got ${p}`);
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Two-sided percentile interval [alpha/2, 1 - alpha/2] of unsorted values (the input is not modified).
 * NaN replicates (a ratio whose denominator was 0 in that resample) are left out; null when all are NaN.
 */
export function percentileInterval(values: Float64Array, alpha = 0.05): [number, number] | null {
  const sorted = Float64Array.from(values).sort(); // typed-array sort is numeric and puts NaN last
  let n = sorted.length;
  while (n > 0 && Number.isNaN(sorted[n - 1])) n--;
  if (n === 0) return null;
  const view = sorted.subarray(0, n);
  return [quantileSorted(view, alpha / 2), quantileSorted(view, 1 - alpha / 2)];
}
