/**
 * The same type-7 percentile interval as `percentileInterval` (quantile.ts), by selection instead of sorting: only four
 * order statistics are needed (the two around each tail quantile), so Hoare's quickselect (expected O(R))
 * replaces an O(R log R) sort. The pairwise stage computes thousands of these over 5,000 replicates.
 */
export function percentileIntervalSelect(values: Float64Array, alpha = 0.05): [number, number] | null {
  const a = new Float64Array(values.length);
  let n = 0;
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i])) a[n++] = values[i];
  return percentileIntervalInPlace(a.subarray(0, n), alpha);
}

/** As above on NaN-free values that may be reordered (callers pass their own scratch buffer). */
export function percentileIntervalInPlace(v: Float64Array, alpha = 0.05): [number, number] | null {
  const n = v.length;
  if (n === 0) return null;
  const at = (p: number): number => {
    const h = (n - 1) * p;
    const lo = Math.floor(h);
    const x0 = select(v, lo);
    if (lo + 1 >= n || h === lo) return x0;
    // After select, everything right of `lo` is >= x0: the next order statistic is their minimum.
    let x1 = Infinity;
    for (let i = lo + 1; i < n; i++) if (v[i] < x1) x1 = v[i];
    return x0 + (h - lo) * (x1 - x0);
  };
  return [at(alpha / 2), at(1 - alpha / 2)];
}

/** Rearranges `a` so a[k] is the k-th smallest, smaller-or-equal before it, greater-or-equal after it. */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    // Median of three as pivot, deterministic (no randomness in the statistics beyond the seeded PRNG).
    const mid = (lo + hi) >>> 1;
    const p = median3(a[lo], a[mid], a[hi]);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < p) i++;
      while (a[j] > p) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

function median3(x: number, y: number, z: number): number {
  return x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
}
