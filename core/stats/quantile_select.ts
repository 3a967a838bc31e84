/**
 * The same type-7 percentile interval as `percentileInterval` (quantile.ts), by selection instead of sorting: only four
 * order statistics are needed (the two around each tail quantile), so a selection (expected O(R), `select` below)
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
  // After the lower quantile's selection at index `from - 1`, every later element is >= it, so the upper one's
  // selection need only look past it.
  let from = 0;
  const at = (p: number): number => {
    const h = (n - 1) * p;
    const lo = Math.floor(h);
    const x0 = select(v, lo, lo >= from ? from : 0);
    from = lo + 1;
    if (lo + 1 >= n || h === lo) return x0;
    // After select, everything right of `lo` is >= x0: the next order statistic is their minimum.
    let x1 = Infinity;
    for (let i = lo + 1; i < n; i++) if (v[i] < x1) x1 = v[i];
    return x0 + (h - lo) * (x1 - x0);
  };
  return [at(alpha / 2), at(1 - alpha / 2)];
}

/**
 * Rearranges a[left..right] so a[k] is the k-th smallest, smaller-or-equal before it, greater-or-equal after it:
 * Floyd & Rivest's SELECT (CACM 18(3), 1975, algorithm 489). For a tail quantile it first selects within a small
 * sample's range around k, so a partition pass rarely goes over the whole array twice (Hoare's quickselect with a
 * median-of-three pivot did several full passes for the 2.5% quantile). Deterministic: no random pivots.
 */
function select(a: Float64Array, k: number, left = 0, right = a.length - 1): number {
  while (right > left) {
    if (right - left > 600) {
      const n = right - left + 1;
      const i = k - left + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (i - n / 2 < 0 ? -1 : 1);
      select(a, k, Math.max(left, Math.floor(k - (i * s) / n + sd)), Math.min(right, Math.floor(k + ((n - i) * s) / n + sd)));
    }
    const t = a[k];
    let i = left;
    let j = right;
    swap(a, left, k);
    if (a[right] > t) swap(a, right, left);
    while (i < j) {
      swap(a, i, j);
      i++;
      j--;
      while (a[i] < t) i++;
      while (a[j] > t) j--;
    }
    if (a[left] === t) swap(a, left, j);
    else {
      j++;
      swap(a, j, right);
    }
    if (j <= k) left = j + 1;
    if (k <= j) right = j - 1;
  }
  return a[k];
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
