import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createBatchApi, type FakeBatchApi } from './batch-api.ts';

/**
 * A local HTTP server speaking the embedding APIs of OpenAI (`/openai/v1/embeddings`, also what
 * OpenAI-compatible servers speak), Gemini (`/gemini/v1beta/models/{model}:batchEmbedContents` and
 * `:embedContent`), Mistral (`/mistral/v1/embeddings`), Cohere (`/cohere/v2/embed`, `/cohere/v2/rerank`), Voyage
 * (`/voyage/v1/embeddings`, `/voyage/v1/rerank`) and Jina (`/jina/v1/embeddings`, `/jina/v1/rerank`), so tests drive the
 * real SDKs (or our plain fetch where no SDK is installed) over real HTTP. Rerank scores are `fakeRerankScore`.
 *
 * Vectors are a deterministic function of (model, text, dimensions): the first components come from the
 * sha256 of the text, so equal texts give equal vectors and tests can recompute any expected vector with
 * `fakeVector`. Faults are scripted per API and consumed in order: a 429 with Retry-After, a 500, or a
 * "short" batch that silently drops the last vector, or a "hold" that answers normally after a delay (to kill a
 * client with a batch in flight: the request is still answered and billed). Every request is recorded (auth headers included, so
 * tests can check the key went out; the server never logs them).
 */
export type Api = 'openai' | 'gemini' | 'mistral' | 'cohere' | 'voyage' | 'jina';
const APIS: readonly Api[] = ['openai', 'gemini', 'mistral', 'cohere', 'voyage', 'jina'];
export type Fault = { status: 429; retryAfter?: string; retryDelayBody?: string } | { status: 500 } | { status: 'short' } | { status: 'hold'; ms: number };

export interface RecordedRequest {
  api: Api;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /**
   * What this request was billed, set when the server answers it (200): input tokens as the server counts them (`billing`),
   * whether or not the API reports usage, and whether or not the client was still there to read the answer.
   */
  billed_tokens?: number;
  /** Set for a request answered inside a provider batch (`/openai/v1/batches`): which batch and line. */
  batch?: { batch_id: string; custom_id: string };
}

export interface FakeEmbeddingServer {
  url: string;
  baseUrls: Record<Api, string>;
  requests: RecordedRequest[];
  /** Requests received and not yet answered (a `hold` fault keeps one in flight). */
  readonly inflight: number;
  /** `GET /openai/v1/models` requests answered (a list with the `models` option, else 404); not in `requests`. */
  readonly listings: number;
  script(api: Api, ...faults: Fault[]): void;
  /** Faults for requests naming this model only (other models' requests, interleaved, are untouched). */
  scriptModel(model: string, ...faults: Fault[]): void;
  /**
   * OpenAI's Batch API under the OpenAI base URL (`/openai/v1/files`, `/openai/v1/batches`): `/v1/embeddings`
   * lines are answered by the same code as the real-time route (same vectors, same usage) and recorded in
   * `requests` with `batch`, so the request log stays the invoice. Scripted faults apply to real-time requests only.
   */
  batches: FakeBatchApi;
  close(): Promise<void>;
}

export function fakeVector(model: string, text: string, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let block = Buffer.alloc(0);
  for (let i = 0; i < dims; i++) {
    if (i % 32 === 0) block = createHash('sha256').update(`${model}\u0000${i / 32}\u0000${text}`).digest();
    v[i] = (block[i % 32] - 127.5) / 127.5;
  }
  return v;
}

/** A rerank API's relevance score for (model, query, document): deterministic, in [0, 1), recomputable by tests. */
export function fakeRerankScore(model: string, query: string, doc: string): number {
  return createHash('sha256').update(`${model}\u0000${query}\u0000${doc}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** Rough token count the fake reports as usage: whitespace-separated words. */
export const fakeTokens = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * `billing: 'words'` (default) reports and bills `fakeTokens` per text; `'bytes'` the most a byte-level tokenizer
 * could bill: every UTF-8 byte a token, plus 4 per text (cost-bound tests).
 */
export async function startFakeEmbeddingServer(opts: { dims?: Record<string, number>; defaultDims?: number; billing?: 'words' | 'bytes'; models?: string[] } = {}): Promise<FakeEmbeddingServer> {
  const tokensOf = opts.billing === 'bytes' ? (t: string) => Buffer.byteLength(t, 'utf8') + 4 : fakeTokens;
  const requests: RecordedRequest[] = [];
  const faults: Record<Api, Fault[]> = { openai: [], gemini: [], mistral: [], cohere: [], voyage: [], jina: [] };
  const modelFaults = new Map<string, Fault[]>();
  const dimsOf = (model: string, asked?: number) => asked ?? opts.dims?.[model] ?? opts.defaultDims ?? 8;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  let inflight = 0;
  let listings = 0;
  /** Applies the next scripted fault; returns true when it answered the request itself. */
  const fault = (api: Api, model: string, res: ServerResponse): 'short' | { hold: number } | boolean => {
    const f = modelFaults.get(model)?.shift() ?? faults[api].shift();
    if (!f) return false;
    if (f.status === 'short') return 'short';
    if (f.status === 'hold') return { hold: f.ms };
    if (f.status === 429) {
      const body = api === 'gemini'
        ? { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED', details: f.retryDelayBody ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: f.retryDelayBody }] : [] } }
        : { error: { message: 'Rate limit reached', type: 'rate_limit_error' } };
      send(res, 429, body, f.retryAfter != null ? { 'retry-after': f.retryAfter } : {});
      return true;
    }
    send(res, 500, api === 'gemini' ? { error: { code: 500, message: 'Internal error', status: 'INTERNAL' } } : { error: { message: 'internal error' } });
    return true;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, rawBytes: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path.startsWith('/openai/v1/files') || path.startsWith('/openai/v1/batches')) {
      const u = new URL((req.url ?? '').slice('/openai'.length), 'http://fake');
      if (batches.handle(req, res, u, rawBytes)) return;
    }
    const raw = rawBytes.toString('utf8');
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return send(res, 400, { error: { message: 'body is not JSON' } });
    }
    const api: Api | null = APIS.find((a) => path.startsWith(`/${a}/`)) ?? null;
    if (!api) return send(res, 404, { error: { message: `no route ${path}` } });
    // What an OpenAI-compatible server lists (`models` option); without it, a server that has no such route.
    // Answered apart: not an embedding request, so neither recorded nor given a scripted fault.
    if (req.method === 'GET' && path === '/openai/v1/models') {
      listings++;
      if (!opts.models) return send(res, 404, { error: { message: `no route ${path}` } });
      return send(res, 200, { object: 'list', data: opts.models.map((id) => ({ id, object: 'model', owned_by: 'fake' })) });
    }
    const recorded: RecordedRequest = { api, path, headers: req.headers, body };
    requests.push(recorded);
    const model = api === 'gemini' ? (/models\/([^:]+):/.exec(path)?.[1] ?? '') : String(body.model ?? '');
    const f = fault(api, model, res);
    if (f === true) return;
    if (typeof f === 'object') {
      inflight++;
      setTimeout(() => {
        inflight--;
        answer(api, path, body, res, recorded, false);
      }, f.hold);
      return;
    }
    answer(api, path, body, res, recorded, f === 'short');
  };

  const inputsOf = (api: Api, path: string, body: any): string[] => {
    if (path.endsWith('/rerank')) return (body.documents ?? []).map((d: string) => `${body.query} ${d}`);
    if (api === 'cohere') return body.texts ?? [];
    if (api === 'gemini') {
      const reqs: any[] = path.endsWith(':batchEmbedContents') ? (body.requests ?? []) : [body];
      return reqs.map((r) => (r.content?.parts ?? []).map((p: { text?: string }) => p.text ?? '').join(''));
    }
    return Array.isArray(body.input) ? body.input : [body.input];
  };

  const answer = (api: Api, path: string, body: any, res: ServerResponse, recorded: RecordedRequest, short: boolean) => {
    const send200 = (payload: unknown) => {
      recorded.billed_tokens = inputsOf(api, path, body).reduce((a, t) => a + tokensOf(String(t ?? '')), 0);
      send(res, 200, payload);
    };
    const trim = <T>(xs: T[]) => (short ? xs.slice(0, -1) : xs);

    if (api === 'openai' && path === '/openai/v1/embeddings') {
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const dims = dimsOf(body.model, body.dimensions);
      return send200({
        object: 'list',
        model: body.model,
        data: trim(input.map((t, index) => ({ object: 'embedding', index, embedding: Array.from(fakeVector(body.model, t, dims)) }))),
        usage: { prompt_tokens: input.reduce((a, t) => a + tokensOf(t), 0), total_tokens: input.reduce((a, t) => a + tokensOf(t), 0) },
      });
    }
    if (api === 'mistral' && path === '/mistral/v1/embeddings') {
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const dims = dimsOf(body.model, body.output_dimension ?? undefined);
      const tokens = input.reduce((a, t) => a + tokensOf(t), 0);
      return send200({
        id: 'emb-1',
        object: 'list',
        model: body.model,
        data: trim(input.map((t, index) => ({ object: 'embedding', index, embedding: Array.from(fakeVector(body.model, t, dims)) }))),
        usage: { prompt_tokens: tokens, total_tokens: tokens, completion_tokens: 0 },
      });
    }
    if (api === 'cohere' && path === '/cohere/v2/embed') {
      const input: string[] = body.texts ?? [];
      const dims = dimsOf(body.model, body.output_dimension ?? undefined);
      const tokens = input.reduce((a, t) => a + tokensOf(t), 0);
      return send200({
        id: 'emb-1',
        response_type: 'embeddings_by_type',
        texts: input,
        embeddings: { float: trim(input.map((t) => Array.from(fakeVector(body.model, t, dims)))) },
        meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens } },
      });
    }
    if (path.endsWith('/rerank') && (api === 'cohere' || api === 'voyage' || api === 'jina')) {
      // The three rerank APIs: results sorted by relevance, cut to top_n (Cohere, Jina) / top_k (Voyage).
      const docs: string[] = body.documents ?? [];
      const limit = api === 'voyage' ? body.top_k : body.top_n;
      const ranked = docs.map((d, index) => ({ index, relevance_score: fakeRerankScore(body.model, body.query, d) })).sort((a, b) => b.relevance_score - a.relevance_score);
      const results = trim(ranked.slice(0, limit ?? docs.length));
      const tokens = inputsOf(api, path, body).reduce((a, t) => a + tokensOf(t), 0);
      if (api === 'cohere') return send200({ id: 'rr-1', results, meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } } });
      if (api === 'voyage') return send200({ object: 'list', data: results, model: body.model, usage: { total_tokens: tokens } });
      return send200({ model: body.model, usage: { total_tokens: tokens, prompt_tokens: tokens }, results });
    }
    if ((api === 'voyage' || api === 'jina') && path === `/${api}/v1/embeddings`) {
      // Both answer OpenAI's shape; Voyage takes output_dimension, Jina dimensions.
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const dims = dimsOf(body.model, (api === 'voyage' ? body.output_dimension : body.dimensions) ?? undefined);
      const tokens = input.reduce((a, t) => a + tokensOf(t), 0);
      return send200({
        object: 'list',
        model: body.model,
        data: trim(input.map((t, index) => ({ object: 'embedding', index, embedding: Array.from(fakeVector(body.model, t, dims)) }))),
        usage: { total_tokens: tokens, ...(api === 'jina' ? { prompt_tokens: tokens } : {}) },
      });
    }
    const g = /^\/gemini\/v1beta\/models\/([^:]+):(batchEmbedContents|embedContent)$/.exec(path);
    if (api === 'gemini' && g) {
      const model = g[1];
      const reqs: any[] = g[2] === 'batchEmbedContents' ? body.requests : [body];
      const embeddings = reqs.map((r) => {
        const text = (r.content?.parts ?? []).map((p: { text?: string }) => p.text ?? '').join('');
        return { values: Array.from(fakeVector(model, text, dimsOf(model, r.outputDimensionality))) };
      });
      return send200(g[2] === 'batchEmbedContents' ? { embeddings: trim(embeddings) } : { embedding: embeddings[0] });
    }
    send(res, 404, { error: { message: `no route ${path}` } });
  };

  let url = '';
  /** A batch line's answer: the real-time route's code on a response that only captures what it would send. */
  const batches = createBatchApi({
    url: () => url,
    requestOf: (_m, pathname, body) => (pathname === '/v1/embeddings' ? { provider: 'openai', endpoint: 'embeddings', model: String(body?.model ?? ''), prompt: '' } : null),
    nextKind: () => 'good',
    answer(_p, _e, _model, body, _prompt, _kind, batch) {
      const recorded: RecordedRequest = { api: 'openai', path: '/openai/v1/embeddings', headers: {}, body, batch };
      requests.push(recorded);
      const captured = { status: 0, body: null as unknown, headers: {} as Record<string, string> };
      const res = {
        writeHead(status: number, headers: Record<string, string>) {
          captured.status = status;
          captured.headers = headers;
        },
        end(text: string) {
          captured.body = JSON.parse(text);
        },
      } as unknown as ServerResponse;
      answer('openai', '/openai/v1/embeddings', body, res, recorded, false);
      return captured;
    },
  });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    batches,
    url,
    baseUrls: { openai: `${url}/openai/v1`, gemini: `${url}/gemini`, mistral: `${url}/mistral`, cohere: `${url}/cohere`, voyage: `${url}/voyage/v1`, jina: `${url}/jina/v1` },
    requests,
    get inflight() {
      return inflight;
    },
    get listings() {
      return listings;
    },
    script: (api, ...fs) => faults[api].push(...fs),
    scriptModel: (model, ...fs) => modelFaults.set(model, [...(modelFaults.get(model) ?? []), ...fs]),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
