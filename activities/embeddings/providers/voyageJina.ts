import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { sideOf } from '../../../core/embeddings/prepare.ts';
import { apiKeyEnv, apiKeyOf, configuredBaseUrl } from '../availability.ts';
import { ProviderResponseError, ProviderUnavailableError, checkBatch, type EmbeddingProvider, type ProviderEnv } from '../types.ts';
import { postJson } from '../http.ts';

/**
 * Voyage AI and Jina AI embeddings. Neither has an official SDK installed here, so each sends its documented REST
 * request with fetch (embeddings/http.ts: a 429 / 5xx error carries status and Retry-After for withRetry). Both answer
 * OpenAI's shape ({data: [{index, embedding}], usage.total_tokens}); `index` decides the order.
 */
const VOYAGE_BASE = 'https://api.voyageai.com/v1';
const JINA_BASE = 'https://api.jina.ai/v1';

function keyFor(config: EmbeddingConfig, penv: ProviderEnv): string {
  const key = apiKeyOf(config, penv);
  if (!key) throw new ProviderUnavailableError(config.config_id, `no API key: set ${apiKeyEnv(config)}`);
  return key;
}

function vectorsOf(config: EmbeddingConfig, sent: number, body: unknown): { vectors: Float32Array[]; tokens: number | null } {
  const data = (body as { data?: { index: number; embedding: number[] }[] }).data;
  if (!Array.isArray(data)) throw new ProviderResponseError(config.config_id, 'response has no data list');
  const vectors = [...data].sort((a, b) => a.index - b.index).map((d) => Float32Array.from(d.embedding));
  checkBatch(config, sent, vectors);
  return { vectors, tokens: (body as { usage?: { total_tokens?: number } }).usage?.total_tokens ?? null };
}

/**
 * Voyage (voyage-code-3 and the voyage-3 family): input_type from the side's task type (query / document: Voyage
 * prepends its own retrieval prompt), output_dimension (Matryoshka) and output_dtype when the configuration sets
 * them, truncation on (the API default, sent explicitly so the request says what it does).
 */
export async function createVoyageProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const key = keyFor(config, penv);
  const base = configuredBaseUrl(config, penv) ?? penv.baseUrls?.voyage ?? VOYAGE_BASE;
  return {
    async embed(texts, side) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      const body = await postJson(`${base}/embeddings`, key, {
        input: [...texts],
        model: config.model,
        input_type: sideOf(config, side).task_type ?? side,
        truncation: true,
        ...(config.output_dimensionality ? { output_dimension: config.output_dimensionality } : {}),
        ...(config.output_dtype ? { output_dtype: config.output_dtype } : {}),
      });
      return vectorsOf(config, texts.length, body);
    },
  };
}

/**
 * Jina (jina-embeddings-v2-base-code, jina-code-embeddings-0.5b / 1.5b, v3/v4): `task` from the side's task type
 * when the configuration names one (code models: nl2code.query / nl2code.passage; v2 models take none), `dimensions`
 * for Matryoshka truncation, float embeddings.
 */
export async function createJinaProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const key = keyFor(config, penv);
  const base = configuredBaseUrl(config, penv) ?? penv.baseUrls?.jina ?? JINA_BASE;
  return {
    async embed(texts, side) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      const task = sideOf(config, side).task_type;
      const body = await postJson(`${base}/embeddings`, key, {
        model: config.model,
        input: [...texts],
        embedding_type: 'float',
        ...(task ? { task } : {}),
        ...(config.output_dimensionality ? { dimensions: config.output_dimensionality } : {}),
      });
      return vectorsOf(config, texts.length, body);
    },
  };
}
