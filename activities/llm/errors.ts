/**
 * Retry classes for provider errors, in one place:
 * - 429 and 5xx, timeouts and connection failures: retryable (Temporal's PROVIDER_RETRY policy backs off);
 * - other 4xx (bad key, unknown model, bad request): non-retryable, with a message that says what to fix;
 * - a missing API key or price: non-retryable before any request is made.
 * The SDKs' own retries are switched off (maxRetries 0) so that Temporal is the only retry layer and the
 * ledger sees every request.
 */
import { isRetryableStatus, parseRetryAfter, type HeaderSource } from './retryAfter.ts';

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly httpStatus: number | null,
    /** The provider's Retry-After, when it sent one: the next retry waits this long instead of the policy's backoff. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = retryable ? 'RetryableProviderError' : 'NonRetryableProviderError';
  }
}

/** Thrown before a call when the run's budget is spent: stops new attempts, leaves the run resumable. */
export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
}

/**
 * The call fits the budget, but not beside the worst cases reserved by calls still in flight: it waits for one of
 * them to finish (its real bill is usually far below its worst case) and asks again (llmActivities). Never shown.
 */
export class BudgetWaitError extends Error {
  override name = 'BudgetWaitError';
}

/** Configuration the run cannot proceed without (API key, price); retrying would not help. */
export class InvalidInputError extends Error {
  override name = 'InvalidInputError';
}

const HINTS: Record<number, string> = {
  400: 'the request was refused as malformed (check the model name, endpoint and parameters)',
  401: 'the API key was refused (check the provider key in the environment)',
  403: 'the API key lacks access to this model or endpoint',
  404: 'the model or endpoint does not exist for this provider',
  413: 'the request is too large for this model',
  422: 'the request parameters were refused',
};

/**
 * `retry-after-ms` (OpenAI) or `retry-after` in seconds (an HTTP date is ignored), from the SDK error's headers
 * (a fetch `Headers` in the OpenAI and Anthropic SDKs). Capped: a provider asking for an hour should not park a
 * worker slot that long; the policy's backoff takes over after the cap.
 */
export function retryAfterMs(err: unknown, capMs = 120_000): number | null {
  const ms = parseRetryAfter((err as { headers?: HeaderSource } | null)?.headers, { dates: false });
  return ms === null ? null : Math.min(ms, capMs);
}

/** The SDKs of all three providers put the HTTP status on `status`; connection errors have none. */
export function classifyProviderError(err: unknown, provider: string, model: string): ProviderError {
  const status = typeof (err as { status?: unknown })?.status === 'number' ? ((err as { status: number }).status as number) : null;
  const raw = ((err as Error)?.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 500);
  if (status === null) return new ProviderError(`${provider}/${model}: request failed before a response (${raw})`, true, null);
  if (!isRetryableStatus(status, { conflict: false })) {
    const hint = HINTS[status] ?? 'the request was refused';
    return new ProviderError(`${provider}/${model}: HTTP ${status}, not retried: ${hint}. Provider said: ${raw}`, false, status);
  }
  if (status === 429) return new ProviderError(`${provider}/${model}: rate limited (HTTP 429): ${raw}`, true, 429, retryAfterMs(err));
  if (status === 408) return new ProviderError(`${provider}/${model}: request timeout (HTTP 408): ${raw}`, true, 408);
  return new ProviderError(`${provider}/${model}: server error (HTTP ${status}): ${raw}`, true, status, retryAfterMs(err));
}
