/**
 * Exact bit-packing of small-integer columns, so one multiply-add in the bootstrap inner loop updates
 * several statistics at once.
 *
 * Most report columns are small non-negative integers, or become integers when scaled: 0/1 outcomes,
 * execp@k × k, reciprocal rank × 2520 (lcm of 1..10), counts of distractors. A replicate sum of such a column
 * is at most n · max, which needs w = ceil(log2(n · max + 1)) bits; columns whose widths add up to at most 52
 * bits share one float64 as fields at bit offsets. Because every value, product and partial sum is a
 * non-negative integer no larger than the final total (< 2^53), the float64 arithmetic is exact and each
 * field is recovered by floor-division and modulo by powers of two. Other columns (nDCG@k for k > 1) stay
 * one per slot.
 */
export interface PackedField {
  /** Index of the source column. */
  source: number;
  scale: number;
  offset: number;
  bits: number;
}

export interface PackingPlan {
  /** One entry per packed slot: the fields it carries (a single field with offset 0 for plain columns). */
  slots: PackedField[][];
  /** Slots that hold one raw (unscaled, unpacked) float column. */
  raw: boolean[];
}

const CAPACITY_BITS = 52;
const SCALES = [1, 2, 3, 4, 5, 6, 8, 10, 12, 2520];

/** Smallest scale that makes every value a non-negative integer, or null. */
function integerScale(col: Float64Array): { scale: number; max: number } | null {
  for (const s of SCALES) {
    let ok = true;
    let max = 0;
    for (let j = 0; j < col.length; j++) {
      const v = col[j] * s;
      const r = Math.round(v);
      if (!(v >= 0) || Math.abs(v - r) > 1e-9 * Math.max(1, r)) {
        ok = false;
        break;
      }
      if (r > max) max = r;
    }
    if (ok) return { scale: s, max };
  }
  return null;
}

export function planPacking(columns: readonly Float64Array[], n: number): PackingPlan {
  const slots: PackedField[][] = [];
  const raw: boolean[] = [];
  let open: PackedField[] | null = null;
  let used = 0;
  columns.forEach((col, source) => {
    const info = integerScale(col);
    const bits = info ? Math.max(1, Math.ceil(Math.log2(info.max * n + 1))) : Infinity;
    if (!info || bits > CAPACITY_BITS) {
      slots.push([{ source, scale: 1, offset: 0, bits: 0 }]);
      raw.push(true);
      return;
    }
    if (!open || used + bits > CAPACITY_BITS) {
      open = [];
      slots.push(open);
      raw.push(false);
      used = 0;
    }
    open.push({ source, scale: info.scale, offset: used, bits });
    used += bits;
  });
  return { slots, raw };
}

/** Packed query-major matrix: P[j * slots + s]. */
export function packColumns(columns: readonly Float64Array[], n: number, plan: PackingPlan): Float64Array {
  const S = plan.slots.length;
  const P = new Float64Array(n * S);
  plan.slots.forEach((fields, s) => {
    for (let j = 0; j < n; j++) {
      if (plan.raw[s]) {
        P[j * S + s] = columns[fields[0].source][j];
        continue;
      }
      let v = 0;
      for (const f of fields) v += Math.round(columns[f.source][j] * f.scale) * 2 ** f.offset;
      P[j * S + s] = v;
    }
  });
  return P;
}

/** Splits packed replicate sums (slot-major: s * R + r) into per-column sums (column-major: c * R + r). */
export function unpackSums(packed: Float64Array, replicates: number, plan: PackingPlan, columns: number): Float64Array {
  const out = new Float64Array(columns * replicates);
  plan.slots.forEach((fields, s) => {
    const base = s * replicates;
    if (plan.raw[s]) {
      out.set(packed.subarray(base, base + replicates), fields[0].source * replicates);
      return;
    }
    for (const f of fields) {
      const div = 2 ** f.offset;
      const mod = 2 ** f.bits;
      const o = f.source * replicates;
      for (let r = 0; r < replicates; r++) out[o + r] = (Math.floor(packed[base + r] / div) % mod) / f.scale;
    }
  });
  return out;
}
