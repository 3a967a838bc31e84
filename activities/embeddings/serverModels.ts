import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { apiKeyOf, configuredBaseUrl } from './availability.ts';
import type { ProviderEnv } from './types.ts';

/**
 * What an OpenAI-compatible server says it holds, from `GET <base>/models`:
 *  - `listed`: it answered with a model list (OpenAI's `{data: [{id}]}`; vLLM, Ollama, LocalAI and our
 *    serve-embeddings do), so availability follows the list;
 *  - `unlisted`: it answered, but not with a list (404 on a server without the route, 401, HTML): nothing is
 *    known, the configuration is tried as before;
 *  - `no_answer`: nothing listens there (refused, timed out): a run against it could only fail.
 */
export type ServerListing = { state: 'listed'; models: string[] } | { state: 'unlisted'; detail: string } | { state: 'no_answer'; detail: string };

/** How long a server gets to list its models: the route is a table lookup, but the server may be busy embedding. */
export const LISTING_TIMEOUT_MS = 10_000;

/** `GET <baseUrl>/models`, with the configuration's key if one is set (vLLM's --api-key guards this route too). */
export async function listServerModels(baseUrl: string, opts: { apiKey?: string; timeoutMs?: number } = {}): Promise<ServerListing> {
  const url = `${baseUrl.replace(/\/+$/, '')}/models`;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {},
      signal: AbortSignal.timeout(opts.timeoutMs ?? LISTING_TIMEOUT_MS),
    });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const cause = err.cause?.code ?? err.cause?.message ?? err.message;
    // fetch (and so the OpenAI SDK) refuses the WHATWG "bad ports" (1, 9, 6000, ...) before connecting.
    const why = err.name === 'TimeoutError' ? `no answer within ${(opts.timeoutMs ?? LISTING_TIMEOUT_MS) / 1000} s` : cause === 'bad port' ? 'a port fetch refuses to connect to (WHATWG bad ports)' : cause;
    return { state: 'no_answer', detail: `GET ${url}: ${why}` };
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) return { state: 'unlisted', detail: `GET ${url}: HTTP ${res.status}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { state: 'unlisted', detail: `GET ${url}: not JSON` };
  }
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) return { state: 'unlisted', detail: `GET ${url}: no \`data\` list` };
  const models: string[] = [];
  for (const d of data) {
    const m = d as { id?: unknown; aliases?: unknown };
    if (typeof m.id === 'string') models.push(m.id);
    // serve-embeddings also answers to each local model's config id, and says so in `aliases`.
    if (Array.isArray(m.aliases)) for (const a of m.aliases) if (typeof a === 'string') models.push(a);
  }
  return { state: 'listed', models };
}

/**
 * One listing per distinct server named by the openai-compatible configurations given (requests in parallel), for
 * `availability` to read through ProviderEnv.servers. Configurations without a URL set cost nothing.
 */
export async function listServers(configs: readonly EmbeddingConfig[], penv: ProviderEnv, opts: { timeoutMs?: number } = {}): Promise<Map<string, ServerListing>> {
  const keyOf = new Map<string, string | undefined>();
  for (const c of configs) {
    if (c.provider !== 'openai-compatible') continue;
    const url = configuredBaseUrl(c, penv);
    if (url && !keyOf.has(url)) keyOf.set(url, apiKeyOf(c, penv));
  }
  const out = new Map<string, ServerListing>();
  await Promise.all([...keyOf].map(async ([url, apiKey]) => out.set(url, await listServerModels(url, { apiKey, timeoutMs: opts.timeoutMs }))));
  return out;
}
