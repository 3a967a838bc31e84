import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A retrieval endpoint as docs/own-retriever.md defines it, for tests: `POST /search {query_id, query, k}` answers
 * `{results: [{corpus_id, score}]}` from `answer(query_id, query, k)`; `POST /index {corpus, corpus_sha256}` is
 * recorded and answered `{ok: true}`. Faults are scripted and consumed in order (a status with an optional
 * Retry-After). Every request is recorded with its headers and body.
 */
export interface FakeRetrievalServer {
  url: string;
  requests: { path: string; headers: IncomingMessage['headers']; body: any }[];
  script(...faults: { status: number; retryAfter?: string }[]): void;
  close(): Promise<void>;
}

export async function startFakeRetrievalServer(answer: (queryId: string, query: string, k: number) => { corpus_id: string; score: number }[]): Promise<FakeRetrievalServer> {
  const requests: FakeRetrievalServer['requests'] = [];
  const faults: { status: number; retryAfter?: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const path = (req.url ?? '').split('?')[0];
      requests.push({ path, headers: req.headers, body });
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(payload));
      };
      const f = faults.shift();
      if (f) return send(f.status, { error: 'scripted' }, f.retryAfter != null ? { 'retry-after': f.retryAfter } : {});
      if (req.method === 'POST' && path === '/index') return send(200, { ok: true });
      if (req.method === 'POST' && path === '/search') return send(200, { results: answer(body.query_id, body.query, body.k).slice(0, body.k) });
      send(404, { error: `no route ${path}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script: (...fs) => faults.push(...fs),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
