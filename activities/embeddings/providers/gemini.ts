import { GoogleGenAI } from '@google/genai';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { sideOf } from '../../../core/embeddings/prepare.ts';
import { apiKeyEnv, apiKeyOf, configuredBaseUrl } from '../availability.ts';
import { ProviderUnavailableError, checkBatch, type EmbeddingProvider, type ProviderEnv } from '../types.ts';
import { providerBaseUrl } from '../baseUrls.ts';

/**
 * Gemini API through `@google/genai`: several contents in one `embedContent` call (the SDK sends
 * batchEmbedContents), the side's task type (CODE_RETRIEVAL_QUERY / RETRIEVAL_DOCUMENT) and the output
 * dimensionality. Each text goes as its own Content: given bare strings, the SDK (2.32) folds them into ONE
 * content of several parts for gemini-embedding-2, which the API embeds as one aggregate vector (the Python
 * SDK fixed the same in googleapis/python-genai#2560). The SDK's ApiError drops response headers, so each call passes a fetch that keeps
 * Retry-After and hangs it on the error for `withRetry`.
 */
export async function createGeminiProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const apiKey = apiKeyOf(config, penv);
  if (!apiKey) throw new ProviderUnavailableError(config.config_id, `no API key: set ${apiKeyEnv(config)}`);
  const baseUrl = configuredBaseUrl(config, penv) ?? providerBaseUrl('gemini', penv);
  const ai = new GoogleGenAI({ apiKey, ...(baseUrl ? { httpOptions: { baseUrl } } : {}) });
  return {
    async embed(texts, side) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      let lastHeaders: Headers | undefined;
      const fetchKeepingHeaders = async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await fetch(input, init);
        lastHeaders = res.headers;
        return res;
      };
      const taskType = sideOf(config, side).task_type;
      try {
        const res = await ai.models.embedContent({
          model: config.model,
          contents: texts.map((text) => ({ role: 'user', parts: [{ text }] })),
          config: {
            ...(taskType ? { taskType } : {}),
            ...(config.output_dimensionality ? { outputDimensionality: config.output_dimensionality } : {}),
            httpOptions: { fetch: fetchKeepingHeaders },
          },
        });
        const vectors = (res.embeddings ?? []).map((e) => Float32Array.from(e.values ?? []));
        checkBatch(config, texts.length, vectors);
        // The Gemini API reports no token usage for embeddings; the sweep estimates it.
        return { vectors, tokens: null };
      } catch (err) {
        if (err && typeof err === 'object' && lastHeaders && !('headers' in err)) Object.assign(err, { headers: lastHeaders });
        throw err;
      }
    },
  };
}
