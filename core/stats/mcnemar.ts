/**
 * Exact McNemar test (McNemar 1947; exact form as in Dietterich 1998): under H0 the b discordant pairs that
 * favour A and the c that favour B are Binomial(b + c, 1/2). Two-sided p = min(1, 2 * P[X <= min(b, c)]),
 * the convention of statsmodels' `mcnemar(table, exact=True)` (b = c = 0 gives p = 1).
 * The binomial tail is summed in log space so b + c in the thousands neither underflows nor overflows.
 */
export interface McNemarResult {
  /** Queries where A passes and B fails. */
  b: number;
  /** Queries where B passes and A fails. */
  c: number;
  p_value: number;
}

export function mcnemarExact(b: number, c: number): McNemarResult {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new RangeError(`mcnemarExact: b and c must be non-negative integers, got b=${b}, c=${c}`);
  }
  const n = b + c;
  const k = Math.min(b, c);
  if (n === 0) return { b, c, p_value: 1 };
  // log C(n, i) built incrementally: log C(n, i) = log C(n, i-1) + log(n - i + 1) - log(i).
  const logHalfN = -n * Math.LN2;
  let logC = 0;
  const terms: number[] = [logHalfN];
  for (let i = 1; i <= k; i++) {
    logC += Math.log(n - i + 1) - Math.log(i);
    terms.push(logC + logHalfN);
  }
  const max = Math.max(...terms);
  let s = 0;
  for (const t of terms) s += Math.exp(t - max);
  const tail = Math.exp(max + Math.log(s));
  return { b, c, p_value: Math.min(1, 2 * tail) };
}

/** Discordant counts of two paired binary outcome vectors (1 = pass). */
export function discordantCounts(a: ArrayLike<number>, bVec: ArrayLike<number>): { b: number; c: number } {
  if (a.length !== bVec.length) throw new RangeError(`discordantCounts: lengths differ (${a.length} vs ${bVec.length})`);
  let b = 0;
  let c = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] > 0;
    const y = bVec[i] > 0;
    if (x && !y) b++;
    else if (y && !x) c++;
  }
  return { b, c };
}
