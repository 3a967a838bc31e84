/**
 * What a provider's HTTP error says about retrying, shared by the LLM (activities/llm/errors.ts) and embedding
 * (activities/embeddings/retry.ts) clients so the two cannot drift: the header lookup, the Retry-After number
 * forms and the retryable statuses. Where the callers differ on purpose, the difference is an option.
 */

/** A fetch `Headers` (openai, anthropic, our Gemini wrapper) or a plain record (cohere-ai, tests). */
export type HeaderSource = { get(name: string): string | null } | Record<string, unknown>;

/** A header by lower-case name; plain records are matched case-insensitively, an array gives its first value. */
export function headerValue(h: HeaderSource | undefined | null, name: string): string | null {
  if (!h || typeof h !== 'object') return null;
  if (typeof (h as { get?: unknown }).get === 'function') return (h as { get(n: string): string | null }).get(name);
  const rec = h as Record<string, unknown>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key ? rec[key] : undefined;
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : null;
}

const NUMBER = /^\d+(\.\d+)?$/;

/**
 * Milliseconds to wait: `retry-after-ms` (OpenAI's finer form), else `retry-after` as delay-seconds or, with
 * `dates`, an HTTP-date relative to `now` (RFC 9110 §10.2.3). null when neither gives a usable value.
 */
export function parseRetryAfter(headers: HeaderSource | undefined | null, opts: { dates: boolean; now?: number }): number | null {
  const ms = headerValue(headers, 'retry-after-ms')?.trim();
  if (ms && NUMBER.test(ms)) return Number(ms);
  const v = headerValue(headers, 'retry-after')?.trim();
  if (!v) return null;
  if (NUMBER.test(v)) return Number(v) * 1000;
  if (!opts.dates) return null;
  const date = Date.parse(v);
  return Number.isNaN(date) ? null : Math.max(0, date - (opts.now ?? Date.now()));
}

/**
 * 408, 429 and 5xx are worth retrying; `conflict`: so is 409 (the embedding client retries it, as the OpenAI
 * SDK does; the LLM client reports it as a refused request).
 */
export function isRetryableStatus(status: number, opts: { conflict: boolean }): boolean {
  return status === 408 || status === 429 || status >= 500 || (opts.conflict && status === 409);
}
