import { z } from 'zod';

/**
 * One embedding configuration: a model *and* the way it is invoked (the paper's "documented best-fair-shot
 * setup"). The same model invoked two ways is two configurations with two `config_id`s.
 */
export const EMBEDDING_PROVIDERS = [
  'openai', // OpenAI embeddings API through the `openai` SDK
  'gemini', // Gemini API through `@google/genai` (task types)
  'mistral', // Mistral API through `@mistralai/mistralai`
  'cohere', // Cohere v2 embed API through `cohere-ai` (input types)
  'voyage', // Voyage AI embeddings API, plain fetch (input_type query/document, output_dimension, output_dtype)
  'jina', // Jina AI embeddings API, plain fetch (task types, dimensions)
  'openai-compatible', // any server speaking OpenAI's /v1/embeddings (text-embeddings-inference, vLLM, Ollama)
  'local-onnx', // in-process transformer through @huggingface/transformers + onnxruntime-node
  'local-static', // in-process static (model2vec-style) token-embedding model
  'local-splade', // in-process learned-sparse encoder (SPLADE) through @huggingface/transformers + onnxruntime-node
  'bm25', // lexical baseline, no vectors
] as const;
export type EmbeddingProviderName = (typeof EMBEDDING_PROVIDERS)[number];

/** How one side (query or document) is sent: a text template and/or a provider-native task type. */
export const EmbeddingSide = z
  .object({
    /** The exact text sent, with `{text}` standing for the input (prefixes and instructions live here). */
    template: z.string().default('{text}'),
    /** Provider-native task type (Gemini `taskType`, Cohere `input_type`), or null. */
    task_type: z.string().nullable().default(null),
  })
  .strict();
export type EmbeddingSide = z.infer<typeof EmbeddingSide>;

export const LocalModel = z
  .object({
    /** Directory name under the local model root (`.execretrieval/models/`). */
    model_dir: z.string().min(1),
    /** How token vectors become one vector (the model card's pooling). */
    pooling: z.enum(['mean', 'cls', 'none']).default('mean'),
    /** ONNX weights to load: fp32 (`model.onnx`) or q8 (`model_quantized.onnx`). */
    dtype: z.enum(['fp32', 'q8']).default('fp32'),
    /** Registry package the weights come from (for the audit trail). */
    package: z.string().nullable().default(null),
  })
  .strict();
export type LocalModel = z.infer<typeof LocalModel>;

export const EmbeddingConfig = z
  .object({
    config_id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, . _ - (used as a directory name)'),
    family: z.string().min(1),
    provider: z.enum(EMBEDDING_PROVIDERS),
    model: z.string().min(1),
    model_revision: z.string().nullable().default(null),
    /** Vector length we store; null only for bm25. */
    dimensions: z.number().int().positive().nullable(),
    /** Truncated output requested from the provider (Matryoshka `dimensions` / `outputDimensionality`); null = model default. */
    output_dimensionality: z.number().int().positive().nullable().default(null),
    /** Voyage `output_dtype`: int8 / uint8 vectors arrive as integers and are stored as float32; null = the provider's float. */
    output_dtype: z.enum(['float', 'int8', 'uint8']).nullable().default(null),
    query: EmbeddingSide.default({ template: '{text}', task_type: null }),
    document: EmbeddingSide.default({ template: '{text}', task_type: null }),
    /** L2-normalise every vector after it arrives (so cosine = dot). */
    normalize: z.boolean().default(true),
    /**
     * How a query scores a document: cosine of dense vectors, dot, BM25 from the texts, or `sparse-dot`: the dot
     * product of learned sparse term weights (SPLADE), stored as (term id, weight) pairs (core/ranking/sparse.ts).
     */
    similarity: z.enum(['cosine', 'dot', 'bm25', 'sparse-dot']).default('cosine'),
    /** Storage dtype of the matrices. */
    dtype: z.literal('float32').default('float32'),
    batch_size: z.number().int().positive().max(2048).default(64),
    max_input_tokens: z.number().int().positive().nullable().default(null),
    /** USD per million input tokens (hosted list price when the registry entry was written); null = free/unknown. */
    price_usd_per_million_tokens: z.number().nonnegative().nullable().default(null),
    /** Environment variable holding the API key (never the key itself). */
    api_key_env: z.string().nullable().default(null),
    /** Environment variable holding the base URL (OpenAI-compatible servers); overrides `base_url`. */
    base_url_env: z.string().nullable().default(null),
    base_url: z.string().nullable().default(null),
    local: LocalModel.nullable().default(null),
    bm25: z.object({ k1: z.number().nonnegative(), b: z.number().min(0).max(1) }).strict().nullable().default(null),
    /** Where the invocation is documented (model card, API reference). */
    source: z.string().default(''),
    /** The weights' license as its package or model card states it (SPDX id, plus where it comes from when not the package); null = not recorded. */
    license: z.string().nullable().default(null),
    /**
     * Run when the user names no configurations (`npm start`, `execretrieval run`/`embed` without --configs).
     * False for a configuration the default run's time budget leaves out (all-mpnet-base-v2, the int8 MiniLM;
     * docs/local-models.md says why): it runs when named.
     */
    default_run: z.boolean().default(true),
    /** One of the paper's 23 + BM25 configurations. */
    paper: z.boolean().default(false),
  })
  .strict()
  .superRefine((c, ctx) => {
    for (const side of ['query', 'document'] as const) {
      if (c[side].template.split('{text}').length !== 2) {
        ctx.addIssue({ code: 'custom', path: [side, 'template'], message: 'must contain {text} exactly once' });
      }
    }
    if (c.provider === 'bm25') {
      if (!c.bm25) ctx.addIssue({ code: 'custom', path: ['bm25'], message: 'bm25 provider needs {k1, b}' });
      if (c.similarity !== 'bm25') ctx.addIssue({ code: 'custom', path: ['similarity'], message: 'bm25 provider scores with bm25' });
    } else if (c.dimensions == null) {
      ctx.addIssue({ code: 'custom', path: ['dimensions'], message: 'dense configurations need dimensions' });
    }
    if (c.provider === 'local-splade') {
      if (c.similarity !== 'sparse-dot') ctx.addIssue({ code: 'custom', path: ['similarity'], message: 'local-splade scores with sparse-dot' });
      if (c.normalize) ctx.addIssue({ code: 'custom', path: ['normalize'], message: 'sparse term weights are not normalised (set false)' });
      if (c.dimensions != null && c.dimensions % 2) ctx.addIssue({ code: 'custom', path: ['dimensions'], message: 'sparse rows are (term, weight) pairs: dimensions must be even' });
    } else if (c.similarity === 'sparse-dot') {
      ctx.addIssue({ code: 'custom', path: ['similarity'], message: 'sparse-dot needs a sparse provider (local-splade)' });
    }
    if ((c.provider === 'local-onnx' || c.provider === 'local-static' || c.provider === 'local-splade') && !c.local) {
      ctx.addIssue({ code: 'custom', path: ['local'], message: `${c.provider} needs local.model_dir` });
    }
    if (c.output_dtype != null && c.provider !== 'voyage') {
      ctx.addIssue({ code: 'custom', path: ['output_dtype'], message: 'only the voyage provider takes output_dtype' });
    }
    if (c.output_dimensionality != null && c.output_dimensionality !== c.dimensions) {
      ctx.addIssue({ code: 'custom', path: ['output_dimensionality'], message: 'must equal dimensions (the stored length)' });
    }
  });
export type EmbeddingConfig = z.infer<typeof EmbeddingConfig>;
export type EmbeddingConfigInput = z.input<typeof EmbeddingConfig>;

/** A registry file: `{ "configs": [...] }`. */
export const EmbeddingConfigFile = z.object({ configs: z.array(z.unknown()) }).strict();
