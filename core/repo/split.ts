/**
 * Deterministic train/test split for tuning fusion and reranker weights: a case's explicit `split` wins,
 * otherwise FNV-1a (32-bit) of its id decides, so adding a case never moves another one between splits.
 */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function splitOf(c: { id: string; split?: 'train' | 'test' }, trainShare = 0.5): 'train' | 'test' {
  if (c.split) return c.split;
  return fnv1a32(c.id) / 0x100000000 < trainShare ? 'train' : 'test';
}
