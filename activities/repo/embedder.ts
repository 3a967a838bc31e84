import type { EmbedderInfo } from '../../schemas/repoIndex.ts';

/**
 * What dense retrieval needs from an embedding model. Injected: tests pass a small deterministic one, the
 * CLI a real local configuration (activities/embeddings) when one is present.
 */
export interface Embedder {
  readonly info: EmbedderInfo;
  embed(texts: string[], side: 'query' | 'document'): Promise<Float32Array[]> | Float32Array[];
  /** Frees the model (sessions, worker processes) once nothing more will be embedded. */
  close?(): Promise<void>;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
