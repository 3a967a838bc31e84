/**
 * Holm's step-down adjustment (Holm 1979) for a family of p-values: sort ascending, p_(i) * (m - i) for
 * i = 0..m-1, made monotone with a running maximum and capped at 1. Same values as statsmodels'
 * `multipletests(p, method='holm')[1]`. Returns adjusted p-values in the input order; NaN stays NaN and is
 * left out of the family size.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const idx = pValues.map((p, i) => [p, i] as const).filter(([p]) => !Number.isNaN(p));
  idx.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const m = idx.length;
  const out = pValues.map(() => NaN);
  let running = 0;
  idx.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}
