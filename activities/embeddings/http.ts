/**
 * A JSON POST for providers without an SDK here (Voyage, Jina, retrieval endpoints). A non-2xx answer throws an error
 * carrying `status` and `headers`, the fields retry.ts `retryInfo` reads, so 429 / 5xx are retried with Retry-After
 * honoured exactly as for the SDK-backed providers; a connection failure keeps fetch's own message ("fetch failed").
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

export async function postJson(url: string, key: string | undefined, body: unknown, timeoutMs = 120_000): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  if (!res.ok) throw new HttpStatusError(res.status, res.headers, text, url);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpStatusError(res.status, res.headers, `answer is not JSON: ${text.slice(0, 100)}`, url);
  }
}
