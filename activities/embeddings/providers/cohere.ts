import { CohereClientV2 } from 'cohere-ai';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { sideOf } from '../../../core/embeddings/prepare.ts';
import { apiKeyEnv, apiKeyOf, configuredBaseUrl } from '../availability.ts';
import { ProviderUnavailableError, checkBatch, type EmbeddingProvider, type ProviderEnv } from '../types.ts';
import { providerBaseUrl } from '../baseUrls.ts';

type CohereInputType = 'search_query' | 'search_document' | 'classification' | 'clustering';

/**
 * Cohere's v2 embed API through the official SDK: the side's task type is Cohere's `input_type`
 * (search_query / search_document), float embeddings, optional output dimension. SDK retries off (per request).
 */
export async function createCohereProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const token = apiKeyOf(config, penv);
  if (!token) throw new ProviderUnavailableError(config.config_id, `no API key: set ${apiKeyEnv(config)}`);
  const baseUrl = configuredBaseUrl(config, penv) ?? providerBaseUrl('cohere', penv);
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
