import { CohereClientV2 } from 'cohere-ai';
import type { RerankConfig, RerankProviderName } from '../../schemas/rerankConfig.ts';
import { ProviderResponseError, ProviderUnavailableError, type ProviderEnv } from '../embeddings/types.ts';
import { postJson } from '../embeddings/http.ts';

/** One request's answer: a relevance score per document, in input order, and what the provider billed. */
export interface RerankResult {
  scores: number[];
  tokens: number | null;
  search_units: number | null;
}

/** A second-stage scorer of (query, documents). Implementations return exactly one finite score per document, or throw. */
export interface Reranker {
  rerank(query: string, documents: readonly string[]): Promise<RerankResult>;
  close?(): Promise<void>;
}

/** Default endpoints, overridden by `base_url_env`'s value, a test's `baseUrls`, then the entry's `base_url`. */
const DEFAULT_BASE: Partial<Record<RerankProviderName, string>> = { voyage: 'https://api.voyageai.com/v1', jina: 'https://api.jina.ai/v1' };
const DEFAULT_KEY_ENV: Partial<Record<RerankProviderName, string>> = { cohere: 'COHERE_API_KEY', voyage: 'VOYAGE_API_KEY', jina: 'JINA_API_KEY' };

function keyOf(config: RerankConfig, penv: ProviderEnv): string {
  const env = config.api_key_env ?? DEFAULT_KEY_ENV[config.provider];
  const key = env ? penv.env[env] : undefined;
  if (!key) throw new ProviderUnavailableError(config.reranker_id, `no API key: set ${env ?? 'api_key_env'}`);
  return key;
}

function baseOf(config: RerankConfig, penv: ProviderEnv): string | undefined {
  const fromEnv = config.base_url_env ? penv.env[config.base_url_env] : undefined;
  const test = (penv.baseUrls as Partial<Record<string, string>> | undefined)?.[config.provider];
  return fromEnv ?? test ?? config.base_url ?? DEFAULT_BASE[config.provider];
}

/** Results [{index, relevance_score}] (any order, maybe fewer than sent) back to one score per document in input order. */
export function scoresInOrder(config: RerankConfig, sent: number, results: readonly { index: number; score: unknown }[]): number[] {
  const scores = new Array<number>(sent).fill(NaN);
  for (const r of results) {
    if (!Number.isInteger(r.index) || r.index < 0 || r.index >= sent || !Number.isNaN(scores[r.index])) {
      throw new ProviderResponseError(config.reranker_id, `result index ${r.index} is out of range or repeated (${sent} documents sent)`);
    }
    if (typeof r.score !== 'number' || !Number.isFinite(r.score)) throw new ProviderResponseError(config.reranker_id, `document ${r.index}: relevance score ${String(r.score)} is not a finite number`);
    scores[r.index] = r.score;
  }
  const missing = scores.findIndex((s) => Number.isNaN(s));
  if (missing >= 0) throw new ProviderResponseError(config.reranker_id, `sent ${sent} documents, got ${results.length} scores back (document ${missing} has none)`);
  return scores;
}

type Factory = (config: RerankConfig, penv: ProviderEnv) => Promise<Reranker>;

/**
 * Provider name -> factory (a typed map: a provider added to the schema without one fails to compile). Every request asks
 * for a score for every document it sends (top_n / top_k = the batch), so the whole list can be reordered.
 */
export const RERANKERS: Record<RerankProviderName, Factory> = {
  // Cohere v2 rerank through the official SDK (SDK retries off: withRetry does them, honouring Retry-After).
  cohere: async (config, penv) => {
    const baseUrl = baseOf(config, penv);
    const client = new CohereClientV2({ token: keyOf(config, penv), ...(baseUrl ? { baseUrl } : {}) });
    return {
      async rerank(query, documents) {
        const res = await client.rerank(
          { model: config.model, query, documents: [...documents], topN: documents.length, ...(config.max_tokens_per_doc ? { maxTokensPerDoc: config.max_tokens_per_doc } : {}) },
          { maxRetries: 0, timeoutInSeconds: 120 },
        );
        const scores = scoresInOrder(config, documents.length, res.results.map((r) => ({ index: r.index, score: r.relevanceScore })));
        return { scores, tokens: null, search_units: res.meta?.billedUnits?.searchUnits ?? null };
      },
    };
  },
  // Voyage: no Node SDK is installed here; the documented REST request, plain fetch.
  voyage: async (config, penv) => {
    const key = keyOf(config, penv);
    const base = baseOf(config, penv)!;
    return {
      async rerank(query, documents) {
        const body = await postJson(`${base}/rerank`, key, { query, documents: [...documents], model: config.model, top_k: documents.length, truncation: true });
        const data = (body as { data?: { index: number; relevance_score: unknown }[] }).data;
        if (!Array.isArray(data)) throw new ProviderResponseError(config.reranker_id, 'response has no data list');
        const usage = (body as { usage?: { total_tokens?: number } }).usage;
        return { scores: scoresInOrder(config, documents.length, data.map((d) => ({ index: d.index, score: d.relevance_score }))), tokens: usage?.total_tokens ?? null, search_units: null };
      },
    };
  },
  // Jina: the documented REST request, plain fetch.
  jina: async (config, penv) => {
    const key = keyOf(config, penv);
    const base = baseOf(config, penv)!;
    return {
      async rerank(query, documents) {
        const body = await postJson(`${base}/rerank`, key, { model: config.model, query, documents: [...documents], top_n: documents.length, return_documents: false });
        const results = (body as { results?: { index: number; relevance_score: unknown }[] }).results;
        if (!Array.isArray(results)) throw new ProviderResponseError(config.reranker_id, 'response has no results list');
        const usage = (body as { usage?: { total_tokens?: number } }).usage;
        return { scores: scoresInOrder(config, documents.length, results.map((d) => ({ index: d.index, score: d.relevance_score }))), tokens: usage?.total_tokens ?? null, search_units: null };
      },
    };
  },
  // text-embeddings-inference's /rerank: what serves a cross-encoder (any sequence-classification model TEI
  // loads) on the user's own machine; serve-embeddings answers the same route with a local scorer. A key only
  // when the entry names one (a TEI behind an authenticating proxy).
  tei: async (config, penv) => {
    const key = config.api_key_env ? keyOf(config, penv) : undefined;
    const base = baseOf(config, penv);
    if (!base) throw new ProviderUnavailableError(config.reranker_id, `no server: set ${config.base_url_env ?? 'base_url'} to the text-embeddings-inference URL`);
    return {
      async rerank(query, documents) {
        const body = await postJson(`${base}/rerank`, key, { query, texts: [...documents], raw_scores: false, truncate: true });
        if (!Array.isArray(body)) throw new ProviderResponseError(config.reranker_id, 'response is not a list of {index, score}');
        return { scores: scoresInOrder(config, documents.length, (body as { index: number; score: unknown }[]).map((d) => ({ index: d.index, score: d.score }))), tokens: null, search_units: null };
      },
    };
  },
  // Built apart (it needs the embedding registry and cache): see localScorer.ts.
  'local-embedding': async (config) => {
    throw new ProviderUnavailableError(config.reranker_id, 'local-embedding rerankers are created by localScorer.ts');
  },
};
