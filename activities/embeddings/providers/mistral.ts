import { Mistral } from '@mistralai/mistralai';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { apiKeyEnv, apiKeyOf, configuredBaseUrl } from '../availability.ts';
import { ProviderUnavailableError, checkBatch, type EmbeddingProvider, type ProviderEnv } from '../types.ts';
import { providerBaseUrl } from '../baseUrls.ts';

/** Mistral's embeddings API (mistral-embed, codestral-embed) through the official SDK, SDK retries off. */
export async function createMistralProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const apiKey = apiKeyOf(config, penv);
  if (!apiKey) throw new ProviderUnavailableError(config.config_id, `no API key: set ${apiKeyEnv(config)}`);
  const serverURL = configuredBaseUrl(config, penv) ?? providerBaseUrl('mistral', penv);
  const client = new Mistral({ apiKey, ...(serverURL ? { serverURL } : {}), retryConfig: { strategy: 'none' }, timeoutMs: 120_000 });
  return {
    async embed(texts) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      const res = await client.embeddings.create({
        model: config.model,
        inputs: [...texts],
        ...(config.output_dimensionality ? { outputDimension: config.output_dimensionality } : {}),
      });
      const data = [...res.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      const vectors = data.map((d) => Float32Array.from(d.embedding ?? []));
      checkBatch(config, texts.length, vectors);
      return { vectors, tokens: res.usage?.promptTokens ?? null };
    },
  };
}
