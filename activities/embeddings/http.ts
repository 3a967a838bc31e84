/**
 * A JSON POST for providers without an SDK here (Voyage, Jina, retrieval endpoints). A non-2xx answer throws an error
 * carrying `status` and `headers`, the fields retry.ts `retryInfo` reads, so 429 / 5xx are retried with Retry-After
 * honoured exactly as for the SDK-backed providers; a connection failure or a timeout is a ConnectionError naming the
 * URL and the cause (fetch's own message was "fetch failed", with neither).
 */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    body: string,
    url: string,
  ) {
    super(`${url}: HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.name = 'HttpStatusError';
  }
}

/** No answer from `url`: the connection failed (refused, reset, DNS) or the request outlived its timeout. Retryable (retry.ts). */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    override readonly cause: unknown,
    timeoutMs: number,
  ) {
    const c = (cause as { cause?: { code?: string; message?: string }; name?: string; message?: string } | null) ?? {};
    const why = c.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s (request timeout)` : c.cause?.message ?? c.cause?.code ?? c.message ?? String(cause);
    super(`${url}: ${why}`);
    this.name = 'ConnectionError';
  }
}

/**
 * POSTs `body` as JSON. `timeoutMs` bounds each request (its answer included); `signal` (an overall deadline) aborts
 * it too, rethrowing the signal's reason.
 */
export async function postJson(url: string, key: string | undefined, body: unknown, timeoutMs = 120_000, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    text = await res.text();
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new ConnectionError(url, err, timeoutMs);
  }
  if (!res.ok) throw new HttpStatusError(res.status, res.headers, text, url);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpStatusError(res.status, res.headers, `answer is not JSON: ${text.slice(0, 100)}`, url);
  }
}
