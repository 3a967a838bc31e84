/**
 * 32-bit FNV-1a over the UTF-16 code units (not UTF-8 bytes): cheap, stable across runs and platforms.
 * The repository benchmark's train/test split uses it. Not the ranking tie order: over ids that differ only in
 * a short suffix it is far from uniform (core/ranking/tieKey.ts).
 */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
