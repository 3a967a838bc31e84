import { join } from 'node:path';
import { loadRegistry } from '../embeddings/configs.ts';
import { retrieverKind } from '../../core/embeddings/registry.ts';
import { EmbeddingCache } from '../embeddings/cache.ts';
import { embeddingCachePath } from '../paths.ts';
import { embedItems } from '../embeddings/embedItems.ts';
import { createProvider } from '../embeddings/providers/index.ts';
import type { EmbeddingProvider } from '../embeddings/types.ts';
import type { Embedder } from './embedder.ts';

/**
 * The CLI's dense retriever: an embedding configuration from the shared registry (data/embedding-configs.json
 * and the user's additions), run through the embeddings side's `embedItems` so templates, normalisation,
 * batching, retries and the embedding cache are the same as in the benchmark sweep.
 */
export function registryEmbedder(root: string, stateDir: string, configId: string): Embedder {
  const reg = loadRegistry({ root });
  const entry = reg.entries.find((e) => e.config.config_id === configId);
  if (!entry) {
    throw new Error(`embedding configuration ${JSON.stringify(configId)} is not in the registry (known: ${reg.entries.map((e) => e.config.config_id).join(', ')})`);
  }
  const config = entry.config;
  if (config.dimensions == null) throw new Error(`${configId}: has no vectors (provider ${config.provider})`);
  // Packed (term, weight) pairs are not vectors a cosine can compare: SPLADE is scored by the benchmark's sparse path only.
  if (retrieverKind(config) === 'sparse') throw new Error(`${configId}: a learned-sparse configuration (similarity sparse-dot); the dense retriever needs a dense one`);
  const cache = new EmbeddingCache(embeddingCachePath(process.env, stateDir));
  let provider: Promise<EmbeddingProvider> | null = null;
  const penv = { env: process.env, modelRoot: join(stateDir, 'models') };
  return {
    info: { config_id: config.config_id, dims: config.dimensions },
    async embed(texts, side) {
      const items = texts.map((text, i) => ({ id: String(i), text }));
      const { vectors } = await embedItems(config, side, items, { cache, provider: () => (provider ??= createProvider(config, penv)) });
      return vectors;
    },
    async close() {
      const p = provider;
      provider = null;
      await (await p?.catch(() => null))?.close?.();
    },
  };
}
