import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cosine, l2Normalize } from '../../core/embeddings/vectors.ts';
import { openAiResponse, parseOpenAiRequest, parseTeiRequest, parseTeiRerankRequest, RequestError } from './requests.ts';
import type { ServedModel } from './servedModel.ts';

/** Largest request body read (a 2,048-text batch of long code is well under it). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface EmbedServer {
  /** http://host:port (the OpenAI base URL is this + /v1). */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface EmbedServerOptions {
  host?: string;
  /** 0: a free port (read it back from `port`). */
  port?: number;
  models: readonly ServedModel[];
  log?: (m: string) => void;
}

/**
 * A small embedding server over local models, speaking OpenAI's embeddings API (what the `openai-compatible`
 * provider, and any user's OpenAI client, sends) and text-embeddings-inference's `/embed` (on the first model).
 * Routes: POST /v1/embeddings (also /embeddings), POST /embed, POST /rerank (TEI's, first model), GET /v1/models,
 * GET /health.
 * Errors are OpenAI-shaped JSON: 400 bad request, 404 unknown route or model, 413 body too large, 500/503
 * model failures (503 when the model's worker died: retrying helps).
 */
export async function startEmbedServer(opts: EmbedServerOptions): Promise<EmbedServer> {
  const log = opts.log ?? (() => {});
  const byName = new Map<string, ServedModel>();
  for (const m of opts.models) for (const n of [m.id, ...m.aliases]) byName.set(n, m);

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const data = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
    res.end(data);
  };

  const readJson = (req: IncomingMessage): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (b: Buffer) => {
        size += b.length;
        if (size > MAX_BODY_BYTES) {
          reject(new RequestError(413, `request body over ${MAX_BODY_BYTES} bytes`));
          req.destroy();
          return;
        }
        chunks.push(b);
      });
      req.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new RequestError(400, 'body is not valid JSON'));
        }
      });
      req.on('error', reject);
    });

  const modelOf = (name: string) => {
    const m = byName.get(name);
    if (!m) throw new RequestError(404, `model '${name}' is not served here (served: ${[...byName.keys()].join(', ')})`, 'model', 'model_not_found');
    return m;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    // A client that closes the connection before its answer (a timeout, then its retry) no longer wants it.
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    if (req.method === 'GET' && (path === '/health' || path === '/')) return send(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/v1/models') {
      return send(res, 200, { object: 'list', data: opts.models.map((m) => ({ id: m.id, object: 'model', owned_by: 'execretrieval', aliases: m.aliases, dimensions: m.dimensions, origin: m.origin })) });
    }
    if (req.method === 'POST' && (path === '/v1/embeddings' || path === '/embeddings')) {
      const r = parseOpenAiRequest(await readJson(req));
      const model = modelOf(r.model);
      if (r.dimensions !== null && r.dimensions !== model.dimensions) {
        throw new RequestError(400, `model '${r.model}' gives ${model.dimensions}-d vectors only; 'dimensions' ${r.dimensions} is not supported`, 'dimensions');
      }
      const t0 = performance.now();
      const out = await model.embed(r.texts, gone.signal);
      log(`${model.id}: ${r.texts.length} texts, ${out.tokens} tokens, ${Math.round(performance.now() - t0)} ms`);
      return send(res, 200, openAiResponse(model.id, out.vectors, out.tokens, r.base64));
    }
    if (req.method === 'POST' && path === '/embed') {
      const r = parseTeiRequest(await readJson(req));
      const model = opts.models[0];
      if (!model) throw new RequestError(404, 'no model is served', null, 'model_not_found');
      const out = await model.embed(r.texts, gone.signal);
      return send(res, 200, out.vectors.map((v) => Array.from(r.normalize ? l2Normalize(v) : v)));
    }
    if (req.method === 'POST' && path === '/rerank') {
      // TEI's rerank route, so a `tei` reranker entry runs against this server as against a cross-encoder's TEI:
      // here the first model scores each (query, text) pair by the cosine of its two vectors (a bi-encoder).
      const r = parseTeiRerankRequest(await readJson(req));
      const model = opts.models[0];
      if (!model) throw new RequestError(404, 'no model is served', null, 'model_not_found');
      const { vectors } = await model.embed([r.query, ...r.texts], gone.signal);
      const scored = vectors.slice(1).map((v, index) => ({ index, score: cosine(vectors[0], v) }));
      return send(res, 200, scored.sort((a, b) => b.score - a.score || a.index - b.index));
    }
    throw new RequestError(404, `no route ${req.method} ${path}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const err = e instanceof RequestError ? e : new RequestError(500, `embedding failed: ${(e as Error).message}`, null, 'server_error');
      if (err.status >= 500) log(`error ${err.status}: ${err.message}`);
      if (!res.headersSent) send(res, err.status, err.body());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      await Promise.all(opts.models.map((m) => m.close()));
    },
  };
}
