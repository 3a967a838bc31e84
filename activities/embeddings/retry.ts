import { EMBED_RETRY, retryDelayMs, type RetryTiming } from '../../core/embeddings/retryDelay.ts';
import { isRetryableStatus, parseRetryAfter as parseHeaders, type HeaderSource } from '../llm/retryAfter.ts';
import { ProviderResponseError, ProviderUnavailableError } from './types.ts';

export interface RetryPolicy extends RetryTiming {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** A wait that ends early, rejecting with the signal's reason, when the signal aborts. */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export const DEFAULT_RETRY: RetryPolicy = EMBED_RETRY;

export interface RetryInfo {
  retryable: boolean;
  status: number | null;
  retryAfterMs: number | null;
}

/** Retry-After is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3); `retry-after-ms` is OpenAI's finer form. */
export function parseRetryAfter(headers: HeaderSource | undefined, now = Date.now()): number | null {
  return parseHeaders(headers, { dates: true, now });
}

/**
 * Reads an SDK error without knowing which SDK threw it: `status` (openai, @google/genai), `statusCode`
 * (@mistralai/mistralai, cohere-ai); headers on `headers` (openai, mistral), `rawResponse.headers` (cohere-ai) or
 * attached by our Gemini fetch wrapper.
 * Gemini also puts the delay in the body (google.rpc.RetryInfo `retryDelay: "12s"`), read from the message.
 */
export function retryInfo(err: unknown): RetryInfo {
  if (err instanceof ProviderResponseError || err instanceof ProviderUnavailableError) return { retryable: false, status: null, retryAfterMs: null };
  const e = (err ?? {}) as { status?: unknown; statusCode?: unknown; headers?: HeaderSource; rawResponse?: { headers?: HeaderSource }; message?: unknown; name?: unknown };
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : null;
  let retryAfterMs = parseRetryAfter(e.headers ?? e.rawResponse?.headers);
  if (retryAfterMs == null && typeof e.message === 'string') {
    const m = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(e.message);
    if (m) retryAfterMs = Number(m[1]) * 1000;
  }
  // No status: a connection-level failure (refused, reset, timeout) is worth retrying; a programming error is not.
  const connection = status == null && /connect|timeout|timed out|fetch failed|socket|ECONN|EPIPE|network/i.test(`${String(e.name)} ${String(e.message)}`);
  const retryable = status != null ? isRetryableStatus(status, { conflict: true }) : connection;
  return { retryable, status, retryAfterMs };
}

export interface RetryEvent {
  attempt: number;
  delayMs: number;
  info: RetryInfo;
  error: unknown;
}

/**
 * Runs `fn`, retrying retryable failures with exponential backoff, honouring Retry-After when given. Once `signal`
 * aborts (the activity was cancelled: its configuration already failed) no further attempt is made and a wait ends
 * at once, throwing the signal's reason.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY, onRetry?: (e: RetryEvent) => void, signal?: AbortSignal): Promise<T> {
  const sleep = policy.sleep ?? (signal ? (ms: number) => abortableSleep(ms, signal) : (ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = policy.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (error) {
      // The signal ended this attempt (a deadline, another lane's fault): that is not the attempt's fault, and
      // reporting it as a retry would put the abort's own "operation was aborted" where the last real fault belongs.
      if (signal?.aborted) throw signal.reason;
      const info = retryInfo(error);
      if (!info.retryable || attempt >= policy.maxAttempts) throw error;
      if (info.retryAfterMs != null && info.retryAfterMs > policy.maxRetryAfterMs) throw error;
      const delayMs = retryDelayMs(attempt, info.retryAfterMs, policy, random);
      onRetry?.({ attempt, delayMs, info, error });
      await sleep(delayMs);
    }
  }
}
