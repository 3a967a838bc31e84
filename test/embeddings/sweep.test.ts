import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeEmbeddingServer, fakeVector, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { embedWorkers } from './embedWorkers.ts';
import { readMatrix } from '../../activities/embeddings/matrix.ts';
import { embedSweep } from '../../workflows/embedSweep.ts';
import { l2Normalize } from '../../core/embeddings/vectors.ts';
import { writeTinyBenchmark } from './sweep-fixture.ts';
import { venvPythonExecutable } from '../../activities/python/interpreter.ts';

let t: TestTemporal;
let server: FakeEmbeddingServer;
before(async () => {
  [t, server] = await Promise.all([startTestTemporal(), startFakeEmbeddingServer({ dims: { 'text-embedding-3-small': 8, 'codestral-embed': 6, 'intfloat/e5-small-v2': 4 } })]);
});
after(async () => {
  await server?.close();
  await t?.stop();
});

const USER_CONFIGS = {
  configs: [
    { config_id: 'oa-small', family: 'openai', provider: 'openai', model: 'text-embedding-3-small', dimensions: 8, batch_size: 3, price_usd_per_million_tokens: 0.02 },
    { config_id: 'codestral', family: 'mistral', provider: 'mistral', model: 'codestral-embed', dimensions: 6, batch_size: 4 },
    { config_id: 'e5-tei', family: 'e5', provider: 'openai-compatible', model: 'intfloat/e5-small-v2', dimensions: 4, base_url_env: 'TEI_URL', query: { template: 'query: {text}' }, document: { template: 'passage: {text}' } },
    // No key for this one in the worker's environment: it must fail alone.
    { config_id: 'gemini-nokey', family: 'gemini', provider: 'gemini', model: 'gemini-embedding-001', dimensions: 8, api_key_env: 'NOT_SET_GEMINI_KEY' },
    // The server answers this one with a short batch: a clear, unretried failure of this configuration only.
    { config_id: 'broken', family: 'x', provider: 'openai-compatible', model: 'broken-model', dimensions: 8, base_url_env: 'TEI_URL', batch_size: 100 },
  ],
};

test('embedSweep fans out per configuration and batch; failures stay in their configuration; rerun is fully cached', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'sweep-'));
  const runDir = join(tmp, 'runs', 'r1');
  const ids = writeTinyBenchmark(runDir, 5);
  const cfgFile = join(tmp, 'my-configs.json');
  writeFileSync(cfgFile, JSON.stringify(USER_CONFIGS));
  const queues = t.uniqueQueues();
  const acts = embedWorkers({
    root: process.cwd(),
    env: { OPENAI_API_KEY: 'k', MISTRAL_API_KEY: 'k', TEI_URL: server.baseUrls.openai },
    cachePath: join(tmp, 'cache.sqlite'),
    baseUrls: server.baseUrls,
  });
  await t.startWorkers({ queues, keys: ['default', 'embed'], providers: acts.providers() });
  const ids5 = ['oa-small', 'codestral', 'e5-tei', 'gemini-nokey', 'broken', 'bm25'];
  const run = () => t.client.workflow.execute(embedSweep, { taskQueue: queues.default, workflowId: `sweep-${queues.prefix}-${Date.now()}`, args: [{ queues, runDir, configIds: ids5, configFiles: [cfgFile] }] });

  brokenModelShort(server);
  const res = await run();
  const by = new Map(res.results.map((r) => [r.config_id, r]));
  assert.equal(by.get('oa-small')!.status, 'ok');
  assert.equal(by.get('codestral')!.status, 'ok');
  assert.equal(by.get('e5-tei')!.status, 'ok');
  assert.equal(by.get('gemini-nokey')!.status, 'unavailable');
  assert.match(by.get('gemini-nokey')!.reason!, /no API key: set NOT_SET_GEMINI_KEY/);
  assert.equal(by.get('broken')!.status, 'failed');
  assert.match(by.get('broken')!.reason!, /broken: sent \d+ texts, got \d+ vectors back/);
  assert.equal(by.get('bm25')!.status, 'lexical');

  // Batch boundaries for oa-small (batch_size 3): 5 queries → 3 + 2, 10 corpus items → 3 + 3 + 3 + 1.
  const oaSizes = server.requests.filter((r) => (r.body as any).model === 'text-embedding-3-small').map((r) => (r.body as any).input.length).sort();
  assert.deepEqual(oaSizes, [1, 2, 3, 3, 3, 3]);
  assert.equal(by.get('oa-small')!.stats!.embedded, 15);
  assert.equal(by.get('oa-small')!.stats!.batches, 6);

  // Matrices: read back with pyarrow (an independent reader), shape, ids, values and metadata.
  const e5Dir = join(runDir, 'embeddings', 'e5-tei');
  const py = venvPythonExecutable();
  const out = execFileSync(py, ['-c', `
import json, sys, pyarrow.parquet as pq, pyarrow.ipc as ipc
res = {}
for name in ("queries", "corpus"):
    a = ipc.open_file(sys.argv[1] + "/" + name + ".arrow").read_all()
    p = pq.read_table(sys.argv[1] + "/" + name + ".parquet")
    assert a.equals(p.cast(a.schema)), name
    res[name] = {"ids": a.column("id").to_pylist(), "vectors": a.column("vector").to_pylist(), "type": str(a.schema.field("vector").type),
                 "meta": {k.decode(): v.decode() for k, v in p.schema.metadata.items() if not k.startswith(b"ARROW")}}
print(json.dumps(res))
`, e5Dir], { encoding: 'utf8' });
  const got = JSON.parse(out);
  assert.deepEqual(got.queries.ids, ids.queries);
  assert.deepEqual(got.corpus.ids, ids.corpus);
  assert.equal(got.corpus.type, 'fixed_size_list<item: float not null>[4]');
  assert.equal(got.corpus.meta.config_id, 'e5-tei');
  assert.equal(got.corpus.meta.side, 'document');
  assert.equal(got.queries.meta.model, 'intfloat/e5-small-v2');
  assert.match(got.queries.meta.texts_sha256, /^[0-9a-f]{64}$/);
  // Values: the fake's vector of the exact text sent ("query: " prefix), normalised.
  const q1 = readFileSync(join(runDir, 'queries.jsonl'), 'utf8').split('\n')[0];
  const want = l2Normalize(fakeVector('intfloat/e5-small-v2', `query: ${JSON.parse(q1).query}`, 4));
  got.queries.vectors[0].forEach((x: number, i: number) => assert.ok(Math.abs(x - want[i]) < 1e-6));
  // Our own reader agrees.
  assert.deepEqual(readMatrix(join(e5Dir, 'corpus.arrow')).ids, ids.corpus);

  // Report with accounting.
  const report = JSON.parse(readFileSync(join(runDir, 'embeddings', 'report.json'), 'utf8'));
  assert.equal(report.configs.length, 6);
  assert.ok(report.configs.find((c: any) => c.config_id === 'oa-small').stats.tokens_reported > 0);
  assert.ok(report.total_cost_usd > 0);

  // Rerun: nothing new reaches the server for configurations already done.
  const before = server.requests.filter((r) => (r.body as any).model !== 'broken-model').length;
  brokenModelShort(server);
  const again = await run();
  assert.equal(server.requests.filter((r) => (r.body as any).model !== 'broken-model').length, before);
  const oa = again.results.find((r) => r.config_id === 'oa-small')!;
  assert.equal(oa.stats!.embedded, 0);
  assert.equal(oa.stats!.cached, 15);
});

/** The fake answers `broken-model` with a short batch once (faults by model: other configurations interleave). */
function brokenModelShort(s: FakeEmbeddingServer) {
  s.scriptModel('broken-model', { status: 'short' });
}

test('a configuration that fails has its other batches cancelled: the sweep reports it once they have stopped, and nothing for it reaches the provider after', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'sweep-cancel-'));
  const runDir = join(tmp, 'runs', 'r2');
  writeTinyBenchmark(runDir, 5);
  const cfgFile = join(tmp, 'flaky.json');
  // batch_size 1: the query side and the document side are one activity each, several requests apiece.
  writeFileSync(cfgFile, JSON.stringify({ configs: [{ config_id: 'flaky', family: 'x', provider: 'openai-compatible', model: 'flaky-model', dimensions: 8, base_url_env: 'TEI_URL', batch_size: 1 }] }));
  const queues = t.uniqueQueues();
  const acts = embedWorkers({
    root: process.cwd(),
    env: { TEI_URL: server.baseUrls.openai },
    cachePath: join(tmp, 'cache.sqlite'),
    baseUrls: server.baseUrls,
  });
  // A provider that keeps answering 500 is retried without end, every 20 ms or so: only a cancellation stops it.
  const retry = { maxAttempts: 1_000_000, baseDelayMs: 40, maxDelayMs: 40, maxRetryAfterMs: 0 };
  await t.startWorkers({ queues, keys: ['default', 'embed'], providers: acts.providers() });
  const flaky = () => server.requests.filter((r) => (r.body as any).model === 'flaky-model').length;
  // Two 500s (both ranges retrying), then a short batch: that range fails for good. Every later request a 500.
  server.scriptModel('flaky-model', { status: 500 }, { status: 500 }, { status: 'short' }, ...Array.from({ length: 100_000 }, () => ({ status: 500 as const })));

  const workflowId = `sweep-cancel-${queues.prefix}`;
  const res = await t.client.workflow.execute(embedSweep, { taskQueue: queues.default, workflowId, args: [{ queues, runDir, configIds: ['flaky'], configFiles: [cfgFile], retry }] });
  const atReturn = flaky();
  const r = res.results.find((x) => x.config_id === 'flaky')!;
  assert.equal(r.status, 'failed');
  // The reason is the first failure (the short batch), not the cancellation of the other batch.
  assert.match(r.reason!, /flaky: sent 1 texts, got 0 vectors back/);
  assert.ok(atReturn >= 3, `the other batch was retrying when it was cancelled (${atReturn} requests)`);

  // The other range (a child workflow of its own) was asked to stop and did stop...
  const { events } = await t.client.workflow.getHandle(workflowId).fetchHistory();
  const count = (key: string) => (events ?? []).filter((e) => (e as Record<string, unknown>)[key]).length;
  assert.equal(count('childWorkflowExecutionFailedEventAttributes'), 1);
  assert.equal(count('requestCancelExternalWorkflowExecutionInitiatedEventAttributes'), 1);
  assert.equal(count('childWorkflowExecutionCanceledEventAttributes'), 1);
  // ...before the sweep reported the configuration: nothing of it was in flight, and nothing came after.
  assert.equal(server.inflight, 0);
  assert.equal(flaky(), atReturn);
});

test('in-process models embed one after another (each batch already uses every core); a hosted one runs beside them', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'sweep-local-'));
  const runDir = join(tmp, 'runs', 'r1');
  writeTinyBenchmark(runDir, 5);
  const cfgFile = join(tmp, 'my-configs.json');
  writeFileSync(cfgFile, JSON.stringify(USER_CONFIGS));
  const queues = t.uniqueQueues();
  const acts = embedWorkers({ root: process.cwd(), env: { OPENAI_API_KEY: 'k' }, cachePath: join(tmp, 'cache.sqlite'), baseUrls: server.baseUrls });
  // Each activity's span, per configuration: recorded where the work runs, in the worker.
  const spans: { config: string; start: number; end: number }[] = [];
  const timed = <A extends { config: { config_id: string } }, R>(f: (a: A) => Promise<R>) => async (a: A): Promise<R> => {
    const start = performance.now();
    try {
      return await f(a);
    } finally {
      spans.push({ config: a.config.config_id, start, end: performance.now() });
    }
  };
  const wrapped = { embedSend: timed(acts.send.embedSend), writeEmbeddingMatrices: timed(acts.coordinator.writeEmbeddingMatrices) };
  await t.startWorkers({ queues, keys: ['default', 'embed'], providers: acts.providers(wrapped) });
  const local = ['local-static-64', 'local-all-minilm-l6-v2'];
  const res = await t.client.workflow.execute(embedSweep, { taskQueue: queues.default, workflowId: `sweep-local-${queues.prefix}`, args: [{ queues, runDir, configIds: [...local, 'oa-small'], configFiles: [cfgFile] }] });
  assert.deepEqual(res.results.map((r) => [r.config_id, r.status]), [['local-static-64', 'ok'], ['local-all-minilm-l6-v2', 'ok'], ['oa-small', 'ok']]);
  const span = (id: string) => {
    const own = spans.filter((s) => s.config === id);
    assert.ok(own.length >= 2, `${id}: ${own.length} activities`);
    return { start: Math.min(...own.map((s) => s.start)), end: Math.max(...own.map((s) => s.end)) };
  };
  const [a, b] = local.map(span);
  // The second in-process model starts only after the first one's last activity (its matrices) has ended.
  assert.ok(b.start >= a.end, `local-all-minilm-l6-v2 started ${(a.end - b.start).toFixed(0)} ms before local-static-64 ended`);
  // The hosted configuration does not wait for them: it starts before the second in-process model.
  assert.ok(span('oa-small').start < b.start);
});
