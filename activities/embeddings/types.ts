import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import type { Side } from '../../core/embeddings/prepare.ts';
import type { ServerListing } from './serverModels.ts';

/** What a provider returns for one batch, in input order. */
export interface EmbedBatchResult {
  vectors: Float32Array[];
  /** Input tokens the provider reports (billing); null when it reports none (local models count their own). */
  tokens: number | null;
}

/**
 * One backend. `embed` receives texts already prepared (template applied); the side tells it which
 * provider-native task type to send. Implementations must return exactly one vector per text, or throw.
 */
export interface EmbeddingProvider {
  embed(texts: readonly string[], side: Side): Promise<EmbedBatchResult>;
  /**
   * Tokens each text is fed to the model as (after truncation), for batching by length (core/embeddings/lengthOrder.ts);
   * only models that pad a batch to its longest text have it: without it, texts are ordered by characters.
   */
  countTokens?(texts: readonly string[]): number[];
  close?(): Promise<void>;
}

/** Where providers find their outside world; tests pass their own (a fake server URL, a temp model root). */
export interface ProviderEnv {
  env: Readonly<Record<string, string | undefined>>;
  /** Root of local model folders (default `.execretrieval/models`). */
  modelRoot: string;
  /** Base URL override per hosted provider (tests point the real SDKs at the fake server with this). */
  baseUrls?: Partial<Record<'openai' | 'gemini' | 'mistral' | 'cohere' | 'voyage' | 'jina', string>>;
  /** What each OpenAI-compatible server (by base URL) listed at `GET /models` (serverModels.ts `listServers`); read by `availability`. */
  servers?: ReadonlyMap<string, ServerListing>;
}

export type ProviderFactory = (config: EmbeddingConfig, penv: ProviderEnv) => Promise<EmbeddingProvider>;

/**
 * Thrown when a configuration cannot run here at all (no API key, no weights, no base URL). The sweep
 * reports it as that configuration's failure and carries on with the others; retrying will not help.
 */
export class ProviderUnavailableError extends Error {
  readonly code = 'PROVIDER_UNAVAILABLE';
  constructor(
    readonly configId: string,
    message: string,
  ) {
    super(`${configId}: ${message}`);
    this.name = 'ProviderUnavailableError';
  }
}

/** Thrown when a provider answers but the answer is unusable (wrong count, wrong length); not retried. */
export class ProviderResponseError extends Error {
  readonly code = 'PROVIDER_BAD_RESPONSE';
  constructor(
    readonly configId: string,
    message: string,
  ) {
    super(`${configId}: ${message}`);
    this.name = 'ProviderResponseError';
  }
}

/** Checks a batch answer's shape; every provider calls it so the message is the same everywhere. */
export function checkBatch(config: EmbeddingConfig, sent: number, vectors: readonly ArrayLike<number>[]): void {
  if (vectors.length !== sent) {
    throw new ProviderResponseError(config.config_id, `sent ${sent} texts, got ${vectors.length} vectors back (${config.provider} ${config.model})`);
  }
  vectors.forEach((v, i) => {
    if (config.dimensions != null && v.length !== config.dimensions) {
      throw new ProviderResponseError(config.config_id, `vector ${i} has ${v.length} dimensions, configuration says ${config.dimensions}`);
    }
  });
}
