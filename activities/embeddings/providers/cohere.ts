import { CohereClientV2 } from 'cohere-ai';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { sideOf } from '../../../core/embeddings/prepare.ts';
import { ProviderUnavailableError, checkBatch, type EmbeddingProvider, type ProviderEnv } from '../types.ts';

type CohereInputType = 'search_query' | 'search_document' | 'classification' | 'clustering';

/**
 * Cohere's v2 embed API through the official SDK: the side's task type is Cohere's `input_type`
 * (search_query / search_document), float embeddings, optional output dimension. SDK retries off (per request).
 */
export async function createCohereProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const keyEnv = config.api_key_env ?? 'COHERE_API_KEY';
  const token = penv.env[keyEnv];
  if (!token) throw new ProviderUnavailableError(config.config_id, `no API key: set ${keyEnv}`);
  const baseUrl = (config.base_url_env ? penv.env[config.base_url_env] : undefined) ?? config.base_url ?? penv.baseUrls?.cohere;
  const client = new CohereClientV2({ token, ...(baseUrl ? { baseUrl } : {}) });
  return {
    async embed(texts, side) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      const inputType = (sideOf(config, side).task_type ?? (side === 'query' ? 'search_query' : 'search_document')) as CohereInputType;
      const res = await client.embed(
        {
          model: config.model,
          texts: [...texts],
          inputType,
          embeddingTypes: ['float'],
          ...(config.output_dimensionality ? { outputDimension: config.output_dimensionality } : {}),
        },
        { maxRetries: 0, timeoutInSeconds: 120 },
      );
      const vectors = (res.embeddings.float ?? []).map((v) => Float32Array.from(v));
      checkBatch(config, texts.length, vectors);
      return { vectors, tokens: res.meta?.billedUnits?.inputTokens ?? null };
    },
  };
}
