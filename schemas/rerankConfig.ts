import { z } from 'zod';

/**
 * A second-stage reranker: scores (query, snippet) pairs of a first stage's top `depth` and reorders them. Like an
 * embedding configuration, it is a model *and* the way it is invoked, each under its own id.
 */
export const RERANK_PROVIDERS = [
  'cohere', // Cohere v2 rerank through the `cohere-ai` SDK (POST /v2/rerank)
  'voyage', // Voyage AI rerank, plain fetch (POST /v1/rerank; no official Node SDK is installed here)
  'jina', // Jina AI reranker, plain fetch (POST /v1/rerank)
  'tei', // a cross-encoder behind Hugging Face text-embeddings-inference's POST /rerank (or serve-embeddings' /rerank), plain fetch
  'local-embedding', // a local embedding model of the registry used as a (query, snippet) scorer: cosine of the two vectors (no cross-encoder weights ship in any registry)
] as const;
export type RerankProviderName = (typeof RERANK_PROVIDERS)[number];

export const RerankConfig = z
  .object({
    reranker_id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, . _ - (used in configuration names)'),
    provider: z.enum(RERANK_PROVIDERS),
    /** The provider's model name; for local-embedding, the embedding registry's config_id it scores with. */
    model: z.string().min(1),
    /** Query template (`{text}` = the query), for models that document an instruction; raw text by default. */
    query_template: z.string().default('{text}'),
    /** Documents sent per request (the provider's documented limit, or less). */
    batch_size: z.number().int().positive().max(1000).default(100),
    /** Cohere `max_tokens_per_doc`; null = provider default. */
    max_tokens_per_doc: z.number().int().positive().nullable().default(null),
    /** USD per million tokens (Voyage, Jina) or per thousand searches (Cohere), as `price_unit` says; null = unknown. */
    price_usd: z.number().nonnegative().nullable().default(null),
    price_unit: z.enum(['million_tokens', 'thousand_searches']).nullable().default(null),
    api_key_env: z.string().nullable().default(null),
    base_url_env: z.string().nullable().default(null),
    base_url: z.string().nullable().default(null),
    /** Where the request shape is documented. */
    source: z.string().default(''),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.query_template.split('{text}').length !== 2) ctx.addIssue({ code: 'custom', path: ['query_template'], message: 'must contain {text} exactly once' });
  });
export type RerankConfig = z.infer<typeof RerankConfig>;
export type RerankConfigInput = z.input<typeof RerankConfig>;

export const RerankConfigFile = z.object({ rerankers: z.array(z.unknown()) }).strict();
