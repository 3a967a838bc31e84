/**
 * The embed queue's one job: send texts to a provider (or run a local model) and return the vectors. It reads
 * and writes no run file, no cache and no ledger: the coordinator reserved each request's ledger row before this
 * activity was scheduled and stores what it returns (sweepCoordinator.ts), so an embed worker may run on another
 * machine, sharing nothing but the Temporal service.
 *
 * One try per request: a retry is a new reservation (a ledger row before every request that leaves the machine),
 * so a failure ends the send and goes back to the workflow with what was answered before it, which waits and
 * reserves again (workflows/embedChunk.ts).
 */
import { Context } from '@temporalio/activity';
import { hostname } from 'node:os';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { invocationFingerprint, type Side } from '../../core/embeddings/prepare.ts';
import { l2Normalize } from '../../core/embeddings/vectors.ts';
import { withHeartbeat } from '../generation/temporalErrors.ts';
import { createProvider } from './providers/index.ts';
import { retryInfo } from './retry.ts';
import { checkBatch, ProviderResponseError, ProviderUnavailableError, type EmbeddingProvider, type ProviderEnv } from './types.ts';
import { encodeVectors } from './wireVectors.ts';
import { modelRoot as defaultModelRoot } from '../paths.ts';
import { availability } from './availability.ts';
import { listServers } from './serverModels.ts';
import type { SaidAvailable } from '../../core/embeddings/planAvailability.ts';

export interface SendInput {
  config: EmbeddingConfig;
  side: Side;
  /** The prepared texts (side template applied) of each request, in the order reserved. */
  requests: string[][];
}

export interface SentRequest {
  /** base64 of the request's vectors, float32 little-endian, row after row (normalised when the configuration says so). */
  vectors: string;
  dims: number;
  /** What the provider reported (null: it reports nothing; the coordinator estimates). */
  tokens: number | null;
  latency_ms: number;
}

export interface SendFailure {
  /** Index of the request that failed; the ones after it were not sent. */
  index: number;
  message: string;
  http_status: number | null;
  /** Worth another try (rate limit, 5xx, connection); false for a missing key or a malformed answer. */
  retryable: boolean;
  retry_after_ms: number | null;
  latency_ms: number;
}

export interface SendResult {
  /** The answered requests, the first `answered.length` of the input. */
  answered: SentRequest[];
  failure: SendFailure | null;
  /** `host:pid` of the sender, for the ledger. */
  worker: string;
}

export interface EmbedSendDeps {
  env: Readonly<Record<string, string | undefined>>;
  modelRoot?: string;
  baseUrls?: ProviderEnv['baseUrls'];
}

/** The running activity's cancellation (the sweep cancels a failed configuration's other sends); none outside one. */
function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

const WORKER = `${hostname()}:${process.pid}`;

/** Embed-queue activities. Providers are created once per worker and configuration and reused (a local model loads once). */
export function createEmbedSendActivities(deps: EmbedSendDeps) {
  const penv: ProviderEnv = { env: deps.env, modelRoot: deps.modelRoot ?? defaultModelRoot(), baseUrls: deps.baseUrls };
  const providers = new Map<string, Promise<EmbeddingProvider>>();
  const providerFor = (config: EmbeddingConfig) => {
    const key = `${config.config_id}\u0000${invocationFingerprint(config, 'query')}`;
    let p = providers.get(key);
    if (!p) {
      p = createProvider(config, penv);
      p.catch(() => providers.delete(key));
      providers.set(key, p);
    }
    return p;
  };

  return {
    /**
     * Whether each configuration can run on this embed worker: its key, its local model, its server and whether
     * that server lists the model. Asked of the embed queue, not the coordinator: the keys and models are where
     * the sends happen.
     */
    async embedAvailability(input: { configs: EmbeddingConfig[] }): Promise<SaidAvailable[]> {
      const here: ProviderEnv = { ...penv, servers: await listServers(input.configs, penv) };
      return input.configs.map((c) => {
        const a = availability(c, here);
        return { config_id: c.config_id, ok: a.ok, detail: a.ok ? '' : a.detail };
      });
    },

    async embedSend(input: SendInput): Promise<SendResult> {
      const signal = cancellationSignal();
      const answered: SentRequest[] = [];
      // Heartbeats on a timer, not per request: a slow request is not a dead worker.
      return withHeartbeat(async () => {
        let provider: EmbeddingProvider;
        try {
          provider = await providerFor(input.config);
        } catch (e) {
          return { answered, failure: failureOf(e, 0, 0), worker: WORKER };
        }
        for (let i = 0; i < input.requests.length; i++) {
          // Cancelled (its configuration failed elsewhere): nothing more leaves the machine.
          signal?.throwIfAborted();
          const texts = input.requests[i];
          const t0 = performance.now();
          try {
            const res = await provider.embed(texts, input.side);
            checkBatch(input.config, texts.length, res.vectors);
            const rows = res.vectors.map((v) => (input.config.normalize ? l2Normalize(v) : Float32Array.from(v)));
            answered.push({ vectors: encodeVectors(rows), dims: rows[0]?.length ?? 0, tokens: res.tokens, latency_ms: performance.now() - t0 });
          } catch (e) {
            return { answered, failure: failureOf(e, i, performance.now() - t0), worker: WORKER };
          }
        }
        return { answered, failure: null, worker: WORKER };
      });
    },

    async closeEmbedSend(): Promise<void> {
      for (const p of providers.values()) await (await p.catch(() => null))?.close?.();
      providers.clear();
    },
  };
}

/**
 * A failed send as the sweep reports it. fetch's own "fetch failed" (the SDKs' connection errors) says neither where
 * nor why: the cause it carries (`connect ECONNREFUSED 127.0.0.1:1`, a DNS failure, a reset) is added to the message.
 */
export function failureOf(e: unknown, index: number, latency_ms: number): SendFailure {
  const info = retryInfo(e);
  const final = e instanceof ProviderUnavailableError || e instanceof ProviderResponseError;
  const cause = e instanceof Error ? (e.cause as { message?: unknown; code?: unknown } | undefined) : undefined;
  const why = cause && typeof cause.message === 'string' && !(e as Error).message.includes(cause.message) ? ` (${cause.message})` : '';
  const message = e instanceof Error ? `${e.message}${why}` : String(e);
  return { index, message, http_status: info.status, retryable: !final && info.retryable, retry_after_ms: info.retryAfterMs, latency_ms };
}

export type EmbedSendActivities = ReturnType<typeof createEmbedSendActivities>;
