/**
 * How long to wait before trying a failed embedding request again: the server's Retry-After when it gave one,
 * else exponential backoff with full jitter. One rule for the in-activity retries (activities/embeddings/retry.ts)
 * and the sweep's, which retries through the workflow (workflows/embedChunk.ts) with a durable timer.
 */
export interface RetryTiming {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** First backoff when the server gives no Retry-After; doubles each attempt, with full jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out. */
  maxRetryAfterMs: number;
  /**
   * `--retry-deadline`: the longest a run of failed tries may last, its waits included, counted from the first
   * failure in a row; a wait that would end past it is not taken and the failure is final. Absent: maxAttempts only.
   */
  maxRetryMs?: number;
}

/**
 * The failure that ends a run of retries when the next wait would end past `policy.maxRetryMs` (null: wait on).
 * `failingForMs` is the time since the first failure in a row.
 */
export function pastRetryDeadline(failingForMs: number, delayMs: number, policy: RetryTiming): string | null {
  if (policy.maxRetryMs === undefined || failingForMs + delayMs <= policy.maxRetryMs) return null;
  return `still failing after ${(failingForMs / 1000).toFixed(1)} s, the next try would pass the retry deadline of ${policy.maxRetryMs / 1000} s (--retry-deadline)`;
}

export const EMBED_RETRY: RetryTiming = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 120_000 };

/** The wait after failed attempt `attempt` (1-based); `random` in [0, 1) draws the jitter. */
export function retryDelayMs(attempt: number, retryAfterMs: number | null, policy: RetryTiming, random: () => number): number {
  return retryAfterMs ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * random();
}
