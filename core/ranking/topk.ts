/**
 * Top-k selection over one score row with the project's tie rule: score descending, then a deterministic
 * order of the corpus ids. `idOrder[i]` is item i's position in that order (see `idOrderOf`), so the
 * tie-break compares integers, not strings.
 * One pass with a small sorted buffer: O(N log k) worst case, O(N) when the threshold rejects most items.
 */

import { DEFAULT_TIE_KEY, tieRank } from './tieKey.ts';

/**
 * Tie order: by a keyed hash of the corpus id (core/ranking/tieKey.ts: SHA-256 of the run's tie key and the
 * id), then the id itself. Plain id order would be biased: release ids put `<q>_canonical` before `<q>_d1`,
 * and lexical retrievers (BM25) often score a canonical and its single-edit twin identically, so every such
 * tie would go to the canonical and flatter the retriever. A weak hash (32-bit FNV-1a, used here until issue
 * 28) is biased too. The keyed hash keeps the rule deterministic while making it blind to what the id says.
 */
export function idOrderOf(ids: readonly string[], tieKey: string = DEFAULT_TIE_KEY): Int32Array {
  const keys = ids.map((id) => tieRank(tieKey, id));
  const perm = ids.map((_, i) => i).sort((a, b) => keys[a] - keys[b] || (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  const order = new Int32Array(ids.length);
  perm.forEach((item, pos) => (order[item] = pos));
  return order;
}

/** Item a ranks before item b. */
function before(row: ArrayLike<number>, idOrder: Int32Array, a: number, b: number): boolean {
  const sa = row[a];
  const sb = row[b];
  return sa > sb || (sa === sb && idOrder[a] < idOrder[b]);
}

/** Indices of the best k items in rank order. NaN scores rank last (a NaN embedding must not win). */
export function topK(row: ArrayLike<number>, idOrder: Int32Array, k: number): Int32Array {
  const n = row.length;
  const kk = Math.min(k, n);
  const buf = new Int32Array(kk);
  let size = 0;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(row[i])) continue;
    if (size === kk) {
      if (kk === 0 || !before(row, idOrder, i, buf[kk - 1])) continue;
      size--;
    }
    // Insertion into the sorted buffer, from the back.
    let p = size;
    while (p > 0 && before(row, idOrder, i, buf[p - 1])) {
      buf[p] = buf[p - 1];
      p--;
    }
    buf[p] = i;
    size++;
  }
  if (size < kk) {
    // Fill with NaN-scored items (id order) so the ranking still has k entries.
    const nan = [];
    for (let i = 0; i < n; i++) if (Number.isNaN(row[i])) nan.push(i);
    nan.sort((a, b) => idOrder[a] - idOrder[b]);
    for (const i of nan) {
      if (size === kk) break;
      buf[size++] = i;
    }
  }
  return buf;
}
