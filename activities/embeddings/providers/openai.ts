import OpenAI from 'openai';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { apiKeyEnv, apiKeyOf, configuredBaseUrl } from '../availability.ts';
import { ProviderUnavailableError, checkBatch, type EmbeddingProvider, type ProviderEnv } from '../types.ts';
import { providerBaseUrl } from '../baseUrls.ts';

/**
 * OpenAI's embeddings API through the official SDK; the same client serves any OpenAI-compatible server
 * (text-embeddings-inference, vLLM, Ollama) by base URL. SDK retries are off: `withRetry` does them for every
 * provider alike, honouring Retry-After.
 */
export async function createOpenAiProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const compat = config.provider === 'openai-compatible';
  const apiKey = apiKeyOf(config, penv);
  if (!compat && !apiKey) throw new ProviderUnavailableError(config.config_id, `no API key: set ${apiKeyEnv(config) ?? 'api_key_env'}`);
  const baseURL = configuredBaseUrl(config, penv) ?? (compat ? undefined : providerBaseUrl('openai', penv));
  if (compat && !baseURL) {
    throw new ProviderUnavailableError(config.config_id, `no server: set ${config.base_url_env ?? 'base_url'} to an OpenAI-compatible embeddings endpoint (e.g. http://host:8080/v1)`);
  }
  // Local servers usually take no key; the SDK insists on a non-empty string.
  const client = new OpenAI({ apiKey: apiKey || 'unused', baseURL, maxRetries: 0, timeout: 120_000 });
  return {
    async embed(texts) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      const res = await client.embeddings.create({
        model: config.model,
        input: [...texts],
        encoding_format: 'float',
        ...(config.output_dimensionality ? { dimensions: config.output_dimensionality } : {}),
      });
      // `index` says which input each vector belongs to; do not trust the order of `data`.
      const data = [...res.data].sort((a, b) => a.index - b.index);
      const vectors = data.map((d) => Float32Array.from(d.embedding));
      checkBatch(config, texts.length, vectors);
      return { vectors, tokens: res.usage?.prompt_tokens ?? null };
    },
  };
}
