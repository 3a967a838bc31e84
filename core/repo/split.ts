/**
 * Deterministic train/test split for tuning fusion and reranker weights: a case's explicit `split` wins,
 * otherwise FNV-1a (32-bit) of its id decides, so adding a case never moves another one between splits.
 */
import { fnv1a32 } from '../hash.ts';

// Re-exported: test helpers hash tokens with the same function.
export { fnv1a32 };

export function splitOf(c: { id: string; split?: 'train' | 'test' }, trainShare = 0.5): 'train' | 'test' {
  if (c.split) return c.split;
  return fnv1a32(c.id) / 0x100000000 < trainShare ? 'train' : 'test';
}
