import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { embedRangeHere, embedWorkers } from './embedWorkers.ts';
import { withAvailability } from '../../core/embeddings/planAvailability.ts';
import { listServerModels } from '../../activities/embeddings/serverModels.ts';
import { buildProgram } from '../../cli/main.ts';
import { writeTinyBenchmark } from './sweep-fixture.ts';

/*
 * Availability of openai-compatible entries from what their server lists (GET /v1/models), against the fake
 * provider: a listed model is ready, an unlisted one unavailable with the reason and sent nothing, a server that
 * cannot list is tried as before, a URL where nothing listens is unavailable. (The real local server:
 * embed-server.test.ts.)
 */

let listing: FakeEmbeddingServer; // lists two models, Ollama-style tag on one
let noList: FakeEmbeddingServer; // answers 404 to GET /v1/models, as a server without the route
let hanging: Server; // accepts the request and never answers
let hangingUrl: string;
let closedUrl: string;

before(async () => {
  [listing, noList] = await Promise.all([startFakeEmbeddingServer({ models: ['intfloat/e5-small-v2', 'nomic-embed-text:latest'] }), startFakeEmbeddingServer()]);
  hanging = createServer(() => {});
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', () => r()));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`;
  // A port that was just free and is closed again: nothing listens there.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/v1`;
  await new Promise<void>((r) => probe.close(() => r()));
});

after(async () => {
  hanging?.closeAllConnections();
  await new Promise<void>((r) => (hanging ? hanging.close(() => r()) : r()));
  await Promise.all([listing?.close(), noList?.close()]);
});

test('listServerModels: a list, a server without the route, nothing listening, no answer in time', async () => {
  assert.deepEqual(await listServerModels(listing.baseUrls.openai), { state: 'listed', models: ['intfloat/e5-small-v2', 'nomic-embed-text:latest'] });
  assert.deepEqual(await listServerModels(`${listing.baseUrls.openai}/`), { state: 'listed', models: ['intfloat/e5-small-v2', 'nomic-embed-text:latest'] }, 'a trailing slash on the base URL');
  assert.deepEqual(await listServerModels(noList.baseUrls.openai), { state: 'unlisted', detail: `GET ${noList.baseUrls.openai}/models: HTTP 404` });
  assert.deepEqual(await listServerModels(closedUrl), { state: 'no_answer', detail: `GET ${closedUrl}/models: ECONNREFUSED` });
  assert.deepEqual(await listServerModels(hangingUrl, { timeoutMs: 300 }), { state: 'no_answer', detail: `GET ${hangingUrl}/models: no answer within 0.3 s` });
});

const CONFIGS = {
  configs: [
    { config_id: 'listed', family: 'x', provider: 'openai-compatible', model: 'intfloat/e5-small-v2', dimensions: 8, base_url_env: 'SRV' },
    { config_id: 'ollama-tag', family: 'x', provider: 'openai-compatible', model: 'nomic-embed-text', dimensions: 8, base_url_env: 'SRV' },
    { config_id: 'not-listed', family: 'x', provider: 'openai-compatible', model: 'thenlper/gte-base', dimensions: 8, base_url_env: 'SRV' },
    { config_id: 'cannot-list', family: 'x', provider: 'openai-compatible', model: 'thenlper/gte-base', dimensions: 8, base_url_env: 'SRV2' },
    { config_id: 'dead', family: 'x', provider: 'openai-compatible', model: 'm', dimensions: 8, base_url_env: 'SRV3' },
  ],
};

test('the sweep plan: a model its server does not list is unavailable with the reason, and is sent nothing', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'srvmodels-'));
  const runDir = join(tmp, 'runs', 'r1');
  writeTinyBenchmark(runDir, 3);
  const cfgFile = join(tmp, 'c.json');
  writeFileSync(cfgFile, JSON.stringify(CONFIGS));
  const w = embedWorkers({
    root: process.cwd(),
    env: { SRV: listing.baseUrls.openai, SRV2: noList.baseUrls.openai, SRV3: closedUrl },
    cachePath: join(tmp, 'cache.sqlite'),
  });
  const acts = w.coordinator;
  try {
    const before = listing.listings;
    // As the sweep plans: the coordinator's ranges, then what an embed worker says it can run.
    const planned = await acts.embedPlan({ runDir, configIds: CONFIGS.configs.map((c) => c.config_id), configFiles: [cfgFile] });
    const said = await w.send.embedAvailability({ configs: planned.configs.map((p) => p.config) });
    const by = new Map(withAvailability(planned.configs, said).map((p) => [p.config.config_id, p]));
    assert.deepEqual(
      [...by].map(([id, p]) => [id, p.status]),
      [['listed', 'ready'], ['ollama-tag', 'ready'], ['not-listed', 'unavailable'], ['cannot-list', 'ready'], ['dead', 'unavailable']],
    );
    assert.equal(by.get('not-listed')!.reason, `server ${listing.baseUrls.openai} does not serve thenlper/gte-base (GET /models lists: intfloat/e5-small-v2, nomic-embed-text:latest)`);
    assert.equal(by.get('dead')!.reason, `server ${closedUrl} does not answer (GET ${closedUrl}/models: ECONNREFUSED)`);
    assert.deepEqual(by.get('not-listed')!.batches, []);
    // Three configurations share one server: it is asked once.
    assert.equal(listing.listings - before, 1);
    assert.equal(listing.requests.length + noList.requests.length, 0, 'planning sends no embedding request');

    // Embedding what the plan made ready reaches the server; the listed model is embedded.
    const ready = by.get('listed')!;
    const stats = await embedRangeHere(w, { runDir, config: ready.config, batch: ready.batches[0] });
    assert.equal(stats.embedded, 3);
    assert.deepEqual([...new Set(listing.requests.map((r) => (r.body as { model: string }).model))], ['intfloat/e5-small-v2']);
  } finally {
    await w.close();
  }
});

test('configs: availability from the server\'s list; without a server, the entries serve-embeddings holds say so', async () => {
  const run = async (env: Record<string, string | undefined>) => {
    const saved = { ...process.env };
    const out: string[] = [];
    const log = console.log;
    console.log = (...a: unknown[]) => out.push(a.join(' '));
    Object.assign(process.env, env);
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
    try {
      await buildProgram().exitOverride().parseAsync(['node', 'execretrieval', 'configs', '--json']);
    } finally {
      console.log = log;
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
    return new Map((JSON.parse(out.join('\n')).configs as { config_id: string; runnable: boolean; detail: string; local_server: boolean }[]).map((c) => [c.config_id, c]));
  };
  const none = await run({ EXECRETRIEVAL_EMBED_BASE_URL: undefined });
  const e5 = none.get('multilingual-e5-small')!;
  assert.deepEqual([e5.runnable, e5.local_server], [false, true]);
  assert.equal(e5.detail, 'no server: set EXECRETRIEVAL_EMBED_BASE_URL; `execretrieval serve-embeddings` serves it here (then EXECRETRIEVAL_EMBED_BASE_URL=http://127.0.0.1:8089/v1)');
  assert.equal(none.get('all-minilm-l6-v2')!.local_server, true, 'the local MiniLM answers to its model name');
  assert.deepEqual([none.get('qwen3-embedding-0.6b')!.local_server, none.get('qwen3-embedding-0.6b')!.detail], [false, 'no server: set EXECRETRIEVAL_EMBED_BASE_URL']);

  // The fake lists e5-small-v2 only: that entry runs, the others on the same variable are unavailable.
  const srv = await run({ EXECRETRIEVAL_EMBED_BASE_URL: listing.baseUrls.openai });
  assert.deepEqual([srv.get('e5-small-v2')!.runnable, srv.get('e5-small-v2')!.detail], [true, `server ${listing.baseUrls.openai} serves intfloat/e5-small-v2`]);
  for (const id of ['qwen3-embedding-0.6b', 'bge-small-en-v1.5', 'gte-base', 'multilingual-e5-small']) {
    assert.equal(srv.get(id)!.runnable, false, id);
    assert.match(srv.get(id)!.detail, /^server .* does not serve .* \(GET \/models lists: intfloat\/e5-small-v2, nomic-embed-text:latest\)$/, id);
  }
});
