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
}

export const EMBED_RETRY: RetryTiming = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 120_000 };

/** The wait after failed attempt `attempt` (1-based); `random` in [0, 1) draws the jitter. */
export function retryDelayMs(attempt: number, retryAfterMs: number | null, policy: RetryTiming, random: () => number): number {
  return retryAfterMs ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * random();
}
