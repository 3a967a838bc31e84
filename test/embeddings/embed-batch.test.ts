/**
 * `embed --batch`: OpenAI embeddings through the fake provider's Batch API (real `openai` SDK, real Temporal).
 * The fake answers `/v1/embeddings` lines with the real-time route's code, so vectors must equal the real-time
 * path's, and its request log (lines marked `batch`) is the invoice: every text billed once, the audit equal to it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { embedRangeHere, embedWorkers } from './embedWorkers.ts';
import { readMatrix } from '../../activities/embeddings/matrix.ts';
import { writeEmbeddingAudit } from '../../activities/embeddings/accounting.ts';
import { embedBatchStoreAt } from '../../activities/batch/embedStore.ts';
import { checkEmbedBatchesAgainstProvider } from '../../activities/batch/verify.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { formatBatches } from '../../cli/commands/batchStatus.ts';
import { embedSweep, type EmbedSweepInput } from '../../workflows/embedSweep.ts';
import { writeTinyBenchmark } from './sweep-fixture.ts';

let t: TestTemporal;
let server: FakeEmbeddingServer;
before(async () => {
  [t, server] = await Promise.all([startTestTemporal(), startFakeEmbeddingServer({ dims: { 'text-embedding-3-small': 8 } })]);
});
after(async () => {
  await server?.close();
  await t?.stop();
});

const PRICE = 0.02;
const CONFIGS = { configs: [{ config_id: 'oa-small', family: 'openai', provider: 'openai', model: 'text-embedding-3-small', dimensions: 8, batch_size: 7, price_usd_per_million_tokens: PRICE }] };

/** A 20-query, 40-snippet benchmark (60 distinct texts) with its own cache and activities. */
function setup(name: string) {
  const tmp = mkdtempSync(join(tmpdir(), 'embed-batch-'));
  const runDir = join(tmp, 'runs', name);
  writeTinyBenchmark(runDir, 20);
  const cfgFile = join(tmp, 'configs.json');
  writeFileSync(cfgFile, JSON.stringify(CONFIGS));
  const w = embedWorkers({ root: process.cwd(), env: { OPENAI_API_KEY: 'k' }, cachePath: join(tmp, 'cache.sqlite'), baseUrls: server.baseUrls });
  const acts = { ...w.coordinator, providers: w.providers, closeEmbedResources: w.close, embedBatch: (x: Parameters<typeof embedRangeHere>[1]) => embedRangeHere(w, x) };
  return { tmp, runDir, cfgFile, acts, name };
}

/** What the fake billed for this run's batches: its lines, and the texts in them. */
function invoice(run: string) {
  const ids = new Set(server.batches.batches.filter((b) => b.metadata?.execretrieval_run === run).map((b) => b.id));
  const lines = server.requests.filter((r) => r.batch && ids.has(r.batch.batch_id));
  const texts = lines.flatMap((r) => (r.body as { input: string[] }).input);
  const tokens = lines.reduce((a, r) => a + (r.billed_tokens ?? 0), 0);
  return { batches: ids.size, lines: lines.length, texts, usd: (tokens * PRICE * 0.5) / 1e6 };
}

const pick = (s: { texts: number; unique_texts: number; cached: number; embedded: number }) => ({ texts: s.texts, unique_texts: s.unique_texts, cached: s.cached, embedded: s.embedded });

function matrices(runDir: string) {
  return ['queries', 'corpus'].map((n) => readMatrix(join(runDir, 'embeddings', 'oa-small', `${n}.arrow`)));
}

test('embed --batch: the same vectors as the real-time path, each text billed once at half price, the audit equal to the invoice; a rerun sends nothing', async () => {
  const rt = setup('rt');
  const bt = setup('bt');
  const queues = t.uniqueQueues();
  // The worker serves the batch run (its own cache); the real-time run is embedded by the same activities called
  // directly, with a cache of its own, so the batch run finds nothing cached.
  await t.startWorkers({ queues, keys: ['default', 'embed'], providers: bt.acts.providers() });
  const plan = await rt.acts.embedPlan({ runDir: rt.runDir, configIds: ['oa-small'], configFiles: [rt.cfgFile] });
  const config = plan.configs[0].config;
  for (const b of plan.configs[0].batches) await rt.acts.embedBatch({ runDir: rt.runDir, config, batch: b });
  await rt.acts.writeEmbeddingMatrices({ runDir: rt.runDir, config });

  server.batches.delayMs = 80;
  const before = server.requests.length;
  const run = () => t.client.workflow.execute(embedSweep, { taskQueue: queues.default, workflowId: `eb-${queues.prefix}-${Date.now()}`, args: [{ queues, runDir: bt.runDir, configIds: ['oa-small'], configFiles: [bt.cfgFile], batch: true, pollFirstMs: 20, pollMaxMs: 100 }] });
  const res = await run();
  assert.equal(res.results[0].status, 'ok', res.results[0].reason ?? '');
  assert.equal(server.requests.slice(before).filter((r) => !r.batch).length, 0, 'no real-time request in a batch sweep');

  const a = matrices(rt.runDir);
  const b = matrices(bt.runDir);
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(b[i].ids, a[i].ids);
    assert.deepEqual(Array.from(b[i].data), Array.from(a[i].data));
  }
  const inv = invoice('bt');
  assert.equal(inv.batches, 1);
  assert.equal(inv.lines, Math.ceil(20 / 7) + Math.ceil(40 / 7));
  assert.equal(inv.texts.length, 60);
  assert.equal(new Set(inv.texts).size, 60, 'each text billed once');
  const audit = writeEmbeddingAudit(bt.runDir)!;
  assert.equal(audit.totals.cost_usd.toFixed(12), inv.usd.toFixed(12));
  assert.ok(inv.usd > 0);
  assert.equal(res.results[0].stats!.cost_usd.toFixed(12), inv.usd.toFixed(12));
  // The sweep's counts, as the real-time path reports them: every text of the benchmark, none found cached.
  assert.deepEqual(pick(res.results[0].stats!), { texts: 60, unique_texts: 60, cached: 0, embedded: 60 });

  // A rerun finds round 1 ingested and nothing missing: no batch, no request.
  const n = server.requests.length;
  const rerun = await run();
  assert.equal(rerun.results[0].status, 'ok');
  assert.deepEqual(pick(rerun.results[0].stats!), { texts: 60, unique_texts: 60, cached: 60, embedded: 0 });
  assert.equal(server.requests.length, n);
  assert.equal(invoice('bt').batches, 1);
});

test('embed --batch: the workflow lost while polling: a new sweep adopts the recorded batch and sends nothing again', async () => {
  const s = setup('lost');
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, keys: ['default', 'embed'], providers: s.acts.providers() });
  server.batches.delayMs = 600_000; // still running when the workflow is gone
  const args: [EmbedSweepInput] = [{ queues, runDir: s.runDir, configIds: ['oa-small'], configFiles: [s.cfgFile], batch: true, pollFirstMs: 20, pollMaxMs: 50 }];
  const h = await t.client.workflow.start(embedSweep, { taskQueue: queues.default, workflowId: `eb-lost-${queues.prefix}`, args });
  while (!embedBatchStoreAt(join(s.runDir, 'ledger.sqlite')).list('lost').some((r) => r.status === 'submitted')) await new Promise((r) => setTimeout(r, 20));
  await h.terminate('killed while polling');
  const created = server.batches.batches.filter((b) => b.metadata?.execretrieval_run === 'lost');
  assert.equal(created.length, 1);
  // What `audit` and `runs` show meanwhile: the batch in flight, with its worst case.
  assert.match(formatBatches(s.runDir, 'lost'), /^provider batches: 1, 1 in flight \(9 requests, at most \$[0-9.]+ more\)\n  embed:oa-small round 1: batch_\d+  submitted \(in_progress\)  9 requests  in flight/);
  created[0].ends_ms = Date.now(); // the provider finishes it meanwhile
  server.batches.delayMs = 0;
  const res = await t.client.workflow.execute(embedSweep, { taskQueue: queues.default, workflowId: `eb-lost2-${queues.prefix}`, args });
  assert.equal(res.results[0].status, 'ok', res.results[0].reason ?? '');
  // The adopted batch's texts were not in the cache when this sweep began: embedded by it, not cached.
  assert.deepEqual(pick(res.results[0].stats!), { texts: 60, unique_texts: 60, cached: 0, embedded: 60 });
  const inv = invoice('lost');
  assert.equal(inv.batches, 1);
  assert.equal(inv.texts.length, 60);
  assert.equal(new Set(inv.texts).size, 60);
  assert.equal(writeEmbeddingAudit(s.runDir)!.totals.cost_usd.toFixed(12), inv.usd.toFixed(12));
  assert.match(formatBatches(s.runDir, 'lost'), /^provider batches: 1, none in flight\n  embed:oa-small round 1: batch_\d+  ingested \(completed\)  9 requests$/);
});

test('embed --batch activities: a kill before the create and one after it (answer lost) submit once; ingestion is idempotent; expired lines go to the next round', async () => {
  const s = setup('kills');
  const config = (await s.acts.embedPlan({ runDir: s.runDir, configIds: ['oa-small'], configFiles: [s.cfgFile] })).configs[0].config;
  const r1 = { runDir: s.runDir, config, round: 1 };
  server.batches.delayMs = 0;

  // Before the create: the upload happened, its answer was lost; nothing was created.
  server.batches.dropNext('upload');
  await assert.rejects(s.acts.embedBatchSubmit(r1));
  assert.equal(invoice('kills').batches, 0);
  // After the create, before our record: the provider created it, we never heard the id.
  server.batches.dropNext('create');
  await assert.rejects(s.acts.embedBatchSubmit(r1));
  assert.equal(invoice('kills').batches, 1);
  assert.equal(embedBatchStoreAt(join(s.runDir, 'ledger.sqlite')).get('kills', 'oa-small', 1)!.status, 'preparing');
  const again = await s.acts.embedBatchSubmit(r1);
  assert.equal(again.how, 'adopted');
  assert.equal((await s.acts.embedBatchSubmit(r1)).how, 'recorded');
  assert.equal(invoice('kills').batches, 1);

  assert.equal((await s.acts.embedBatchPoll(r1)).ended, true);
  const got = await s.acts.embedBatchIngest(r1);
  assert.equal(got.texts, 60);
  assert.deepEqual(await s.acts.embedBatchIngest(r1), { answered: 0, failed: 0, texts: 0, tokens_reported: 0, tokens_estimated: 0, cost_usd: 0 });
  const ledger = new EmbeddingLedger(join(s.runDir, 'ledger.sqlite'));
  assert.equal(ledger.batches('kills').filter((b) => b.status === 'ok').length, again.requests);
  ledger.close();
  // Everything is cached: round 2 has nothing to send.
  assert.equal((await s.acts.embedBatchSubmit({ ...r1, round: 2 })).batch_id, null);

  // Partial expiry on a fresh run: round 1 answers 2 lines, the rest (not billed) go into round 2.
  const p = setup('expiry');
  const e1 = { runDir: p.runDir, config, round: 1 };
  server.batches.expireAfter = 2;
  try {
    const sub = await p.acts.embedBatchSubmit(e1);
    await p.acts.embedBatchPoll(e1);
    const part = await p.acts.embedBatchIngest(e1);
    assert.equal(part.answered, 2);
    assert.equal(part.failed, sub.requests - 2);
  } finally {
    server.batches.expireAfter = null;
  }
  const e2 = { ...e1, round: 2 };
  await p.acts.embedBatchSubmit(e2);
  await p.acts.embedBatchPoll(e2);
  const rest = await p.acts.embedBatchIngest(e2);
  const inv = invoice('expiry');
  assert.equal(inv.texts.length, 60);
  assert.equal(new Set(inv.texts).size, 60, 'an expired line is billed once, in the round that answered it');
  assert.equal(rest.texts + 14, 60); // round 1 answered 2 lines of 7 texts
  assert.equal(writeEmbeddingAudit(p.runDir)!.totals.cost_usd.toFixed(12), inv.usd.toFixed(12));
  await s.acts.closeEmbedResources();
  await p.acts.closeEmbedResources();
});

test('audit --check-batches on embedding batches: the provider files match the ledger line by line; a ledger row changed or missing is one line each and exit 1', async () => {
  const s = setup('check');
  const config = (await s.acts.embedPlan({ runDir: s.runDir, configIds: ['oa-small'], configFiles: [s.cfgFile] })).configs[0].config;
  const r1 = { runDir: s.runDir, config, round: 1 };
  server.batches.delayMs = 0;
  const sub = await s.acts.embedBatchSubmit(r1);
  await s.acts.embedBatchPoll(r1);
  await s.acts.embedBatchIngest(r1);
  await s.acts.closeEmbedResources();
  const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.baseUrls.openai };
  const [ok] = await checkEmbedBatchesAgainstProvider(s.runDir, 'check', env);
  assert.deepEqual(ok.differences, []);
  assert.equal(ok.answered, sub.requests);
  assert.equal(ok.cost_usd.toFixed(12), invoice('check').usd.toFixed(12), "the provider's files priced = the invoice");

  // The ledger altered after ingestion: one line's tokens raised, another line's row gone.
  const db = new Database(join(s.runDir, 'ledger.sqlite'));
  const ids = (db.prepare(`SELECT id FROM embed_batches WHERE run_id='check' ORDER BY id`).all() as { id: number }[]).map((r) => r.id);
  db.prepare(`UPDATE embed_batches SET tokens_reported = tokens_reported + 1 WHERE id=?`).run(ids[0]);
  db.prepare(`DELETE FROM embed_batch_texts WHERE batch_row=?`).run(ids[1]);
  db.prepare(`DELETE FROM embed_batches WHERE id=?`).run(ids[1]);
  db.close();
  const [bad] = await checkEmbedBatchesAgainstProvider(s.runDir, 'check', env);
  assert.equal(bad.differences.length, 2);
  assert.match(bad.differences[0], /^1-1 \(query, 7 texts\): provider answered 7 vectors, \d+ tokens .*; ledger ok 7 texts, \d+ tokens/);
  assert.match(bad.differences[1], /^1-2 \(query, 7 texts\): no ledger row$/);

  const bin = new URL('../../bin/execretrieval.js', import.meta.url).pathname;
  // Asynchronously: the fake provider answering the CLI runs in this process.
  const cli = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, 'audit', '--run', s.runDir, '--check-batches'], { encoding: 'utf8', env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
  assert.equal(cli.status, 1, cli.stderr);
  const lines = cli.stdout.split('\n').filter((l) => l.startsWith(`  ${sub.batch_id} (embed:oa-small:1): `));
  assert.equal(lines.length, 2, cli.stdout);
  assert.match(cli.stdout, /provider files of 1 ingested batches: 9 answered requests, \$[0-9.]+ at batch prices; 2 differences from the ledger:/);
});

test("a ledger whose embed_provider_batches predates the recorded configuration: opened, the column is added and its old rows read with no configuration", () => {
  const path = join(mkdtempSync(join(tmpdir(), 'embed-batch-old-')), 'ledger.sqlite');
  const db = new Database(path);
  db.exec(`CREATE TABLE embed_provider_batches (
    run_id TEXT NOT NULL, config_id TEXT NOT NULL, round INTEGER NOT NULL, status TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
    requests_sha256 TEXT NOT NULL, requests TEXT NOT NULL, request_count INTEGER NOT NULL, cost_usd_max REAL NOT NULL,
    batch_id TEXT, input_file_id TEXT, output_file_id TEXT, error_file_id TEXT, provider_status TEXT,
    prepared_at TEXT NOT NULL, submitted_at TEXT, ended_at TEXT, ingested_at TEXT, PRIMARY KEY (run_id, config_id, round));
    INSERT INTO embed_provider_batches (run_id, config_id, round, status, provider, model, requests_sha256, requests, request_count, cost_usd_max, prepared_at)
    VALUES ('old', 'oa-small', 1, 'preparing', 'openai', 'text-embedding-3-small', 'x', '[]', 0, 0, '2026-12-01T00:00:00Z');`);
  db.close();
  const store = embedBatchStoreAt(path);
  assert.equal(store.get('old', 'oa-small', 1)!.config, null);
  assert.ok(store.prepare({ run_id: 'old', config_id: 'oa-small', round: 2, provider: 'openai', model: 'text-embedding-3-small', requests_sha256: 'y', requests: [], config: EmbeddingConfig.parse(CONFIGS.configs[0]) }));
  assert.equal(store.get('old', 'oa-small', 2)!.config!.price_usd_per_million_tokens, PRICE);
});
