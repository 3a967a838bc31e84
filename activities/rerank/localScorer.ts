import type { RerankConfig } from '../../schemas/rerankConfig.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { cosine } from '../../core/embeddings/vectors.ts';
import type { EmbeddingCache } from '../embeddings/cache.ts';
import { embedItems } from '../embeddings/embedItems.ts';
import { createProvider } from '../embeddings/providers/index.ts';
import { ProviderUnavailableError, type EmbeddingProvider, type ProviderEnv } from '../embeddings/types.ts';
import type { Reranker } from './providers.ts';

/**
 * The local second stage: no package registry ships cross-encoder weights (FACTS.md, checked again for issue 24), so
 * a local embedding model of the registry scores each (query, snippet) pair by the cosine of its query vector and the
 * snippet's document vector, each invoked as its configuration says (templates, pooling) and cached in the embedding
 * cache. It is a bi-encoder: what it adds over a lexical first stage is the dense model's judgement on that stage's
 * top `depth`, not cross-attention.
 */
export function createLocalScorer(config: RerankConfig, embedding: EmbeddingConfig | undefined, penv: ProviderEnv, cache: EmbeddingCache): Reranker {
  if (!embedding) throw new ProviderUnavailableError(config.reranker_id, `model ${config.model} is not an embedding configuration of the registry`);
  let provider: Promise<EmbeddingProvider> | null = null;
  const deps = { cache, provider: () => (provider ??= createProvider(embedding, penv)) };
  return {
    async rerank(query, documents) {
      const [q] = (await embedItems(embedding, 'query', [{ id: 'q', text: query }], deps)).vectors;
      const d = (await embedItems(embedding, 'document', documents.map((text, i) => ({ id: String(i), text })), deps)).vectors;
      return { scores: d.map((v) => cosine(q, v)), tokens: null, search_units: null };
    },
    async close() {
      if (provider) await (await provider).close?.();
    },
  };
}
