/** Vector arithmetic on Float32Array rows (accumulated in float64 for stable sums). */

/** Returns a new L2-normalised copy; a zero vector stays zero (cosine with it is 0, not NaN). */
export function l2Normalize(v: Float32Array): Float32Array {
  let ss = 0;
  for (let i = 0; i < v.length; i++) ss += v[i] * v[i];
  const out = new Float32Array(v.length);
  if (ss === 0) return out;
  const inv = 1 / Math.sqrt(ss);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`dot: length ${a.length} != ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  const na = Math.sqrt(dot(a, a));
  const nb = Math.sqrt(dot(b, b));
  return na === 0 || nb === 0 ? 0 : dot(a, b) / (na * nb);
}

/** Square matrix of pairwise cosines. */
export function cosineMatrix(rows: readonly Float32Array[]): number[][] {
  return rows.map((a) => rows.map((b) => cosine(a, b)));
}
