/**
 * `embed --batch` on a 600-text sweep with the worker process SIGKILLed at each step of a round, against a real dev
 * server, the real `openai` SDK and the fake embedding provider's Batch API (whose request log is the invoice):
 *  - before the create: the input file uploaded, the upload's answer held back, the worker killed;
 *  - after the create and before it is recorded: the create's answer held back, the worker killed;
 *  - while polling: the batch still running at the provider, the workflow on its timer, the worker killed;
 *  - inside the ingest transaction: a trigger in the run's ledger stalls the transaction after 5 of its 12
 *    `embed_batches` rows; the worker is killed while it holds the write lock.
 * The first three resume the same workflow on a fresh worker (the killed activity retried after its heartbeat
 * timeout); the last is run again as a new sweep (the CLI's rerun when Temporal's state is gone too).
 * Each is checked against the provider's log: one batch, every text billed once (one per (text, attempt): no line
 * failed), no real-time request; the audit equal to the invoice; the matrices byte-identical to the real-time
 * path's on the same fake answers; the sweep's counts as the real-time path reports them.
 * The four scenarios run side by side (one fake provider, run and worker each) so their waits overlap.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { armStall, disarmStall, writerBusy } from '../support/stallTransaction.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { writeTinyBenchmark } from '../embeddings/sweep-fixture.ts';
import { embedRangeHere, embedWorkers } from '../embeddings/embedWorkers.ts';
import { readMatrix } from '../../activities/embeddings/matrix.ts';
import { writeEmbeddingAudit } from '../../activities/embeddings/accounting.ts';
import { readEmbedBatchRows } from '../../activities/batch/embedStore.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { embedSweep, type EmbedSweepInput } from '../../workflows/embedSweep.ts';

const MODEL = 'text-embedding-3-small';
const PRICE = 0.02; // USD per million tokens (list); the batch bills half
const QUERIES = 200; // 200 queries + 400 snippets = 600 distinct texts
const TEXTS = 3 * QUERIES;
const BATCH_SIZE = 50; // 4 query lines + 8 snippet lines
const LINES = QUERIES / BATCH_SIZE + (2 * QUERIES) / BATCH_SIZE;

const servers: FakeEmbeddingServer[] = [];
let t: TestTemporal;
before(async () => {
  t = await startTestTemporal();
});
after(async () => {
  for (const s of servers) await s.close();
  await t?.stop();
});

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** One run: its own fake provider (so faults and invoices are its own), benchmark, cache, config file and queues. */
async function setup(name: string) {
  const server = await startFakeEmbeddingServer({ dims: { [MODEL]: 8 } });
  servers.push(server);
  const dir = join(t.tmp, name);
  mkdirSync(dir, { recursive: true });
  const runDir = join(dir, 'runs', name);
  writeTinyBenchmark(runDir, QUERIES);
  const cfgFile = join(dir, 'configs.json');
  writeFileSync(cfgFile, JSON.stringify({ configs: [{ config_id: 'oa-small', family: 'openai', provider: 'openai', model: MODEL, dimensions: 8, batch_size: BATCH_SIZE, base_url_env: 'FAKE_OA_URL', price_usd_per_million_tokens: PRICE }] }));
  const cachePath = join(dir, 'cache.sqlite');
  const env = { OPENAI_API_KEY: 'k', FAKE_OA_URL: server.baseUrls.openai, EXECRETRIEVAL_EMBED_CACHE: cachePath };
  const queues = t.uniqueQueues();
  const ledger = join(runDir, 'ledger.sqlite');
  const args: [EmbedSweepInput] = [{ queues, runDir, configIds: ['oa-small'], configFiles: [cfgFile], batch: true, pollFirstMs: 50, pollMaxMs: 200 }];
  return { name, server, runDir, cfgFile, cachePath, env, queues, ledger, args };
}
type Run = Awaited<ReturnType<typeof setup>>;

/** The run's round-1 batch record (null before the sweep opened its ledger). */
const rowOf = (r: Run) => (existsSync(r.ledger) ? (readEmbedBatchRows(r.ledger, r.name)[0] ?? null) : null);

/** In-process workers for the run's queues, with the run's cache and provider (after the kill). */
function recover(r: Run) {
  const acts = embedWorkers({ root: process.cwd(), env: r.env, cachePath: r.cachePath, baseUrls: r.server.baseUrls });
  return t.startWorkers({ queues: r.queues, keys: ['default', 'embed'], providers: acts.providers() });
}

async function kill(child: ChildProcess): Promise<void> {
  const gone = new Promise((res) => child.once('exit', res));
  child.kill('SIGKILL');
  await gone;
}

/** The `embed_batches` rows ingestion wrote for the run (answered lines). */
function ledgerRows(r: Run) {
  const l = new EmbeddingLedger(r.ledger);
  try {
    return l.batches(r.name);
  } finally {
    l.close();
  }
}

const matrices = (runDir: string) => ['queries', 'corpus'].map((n) => readMatrix(join(runDir, 'embeddings', 'oa-small', `${n}.arrow`)));

/** The invariants every scenario keeps, whatever was killed on the way. */
function checkRun(r: Run, reference: ReturnType<typeof matrices>) {
  const batches = r.server.batches.batches.filter((b) => b.metadata?.execretrieval_run === r.name);
  assert.equal(batches.length, 1, `${r.name}: one batch created`);
  assert.equal(r.server.requests.filter((q) => !q.batch).length, 0, `${r.name}: no real-time request`);
  const lines = r.server.requests.filter((q) => q.batch);
  assert.equal(lines.length, LINES, `${r.name}: each line answered once`);
  const texts = lines.flatMap((q) => (q.body as { input: string[] }).input);
  assert.equal(texts.length, TEXTS, `${r.name}: ${texts.length} texts billed`);
  assert.equal(new Set(texts).size, TEXTS, `${r.name}: each text billed once`);
  const usd = (lines.reduce((a, q) => a + (q.billed_tokens ?? 0), 0) * PRICE * 0.5) / 1e6;
  assert.ok(usd > 0);
  const rows = ledgerRows(r);
  assert.equal(rows.length, LINES, `${r.name}: each line ingested once`);
  assert.ok(rows.every((x) => x.status === 'ok'));
  const audit = writeEmbeddingAudit(r.runDir)!;
  assert.equal(audit.totals.cost_usd.toFixed(12), usd.toFixed(12), `${r.name}: audit = invoice`);
  assert.equal(audit.totals.lost_batches, 0);
  const m = matrices(r.runDir);
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(m[i].ids, reference[i].ids);
    assert.deepEqual(Array.from(m[i].data), Array.from(reference[i].data), `${r.name}: the real-time path's vectors`);
  }
  return usd;
}

test('embed --batch, 600 texts, the worker SIGKILLed before the create, after it, while polling and inside the ingest transaction: one batch each, every text billed once, audit = invoice, the real-time vectors', async () => {
  // The real-time path on the same benchmark and fake answers (activities called directly, a provider of its own).
  const rt = await setup('rt');
  const rtActs = embedWorkers({ root: process.cwd(), env: rt.env, cachePath: rt.cachePath, baseUrls: rt.server.baseUrls });
  const plan = await rtActs.coordinator.embedPlan({ runDir: rt.runDir, configIds: ['oa-small'], configFiles: [rt.cfgFile] });
  const config = plan.configs[0].config;
  for (const b of plan.configs[0].batches) await embedRangeHere(rtActs, { runDir: rt.runDir, config, batch: b });
  await rtActs.coordinator.writeEmbeddingMatrices({ runDir: rt.runDir, config });
  await rtActs.close();
  const reference = matrices(rt.runDir);
  assert.equal(reference[0].ids.length + reference[1].ids.length, TEXTS);

  const start = (r: Run, id = `${r.name}-${r.queues.prefix}`) => t.client.workflow.start(embedSweep, { taskQueue: r.queues.default, workflowId: id, args: r.args });

  // Before the create: the upload reached the provider, its answer is held; the worker dies.
  const upload = await setup('kill-upload');
  const heldUpload = upload.server.batches.holdNext('upload');
  const c1 = await t.spawnWorker(upload.queues.prefix, upload.env);
  const h1 = await start(upload);
  const killed1 = (async () => {
    await heldUpload.arrived;
    await kill(c1);
    heldUpload.release();
    assert.equal(rowOf(upload)?.status, 'preparing', 'recorded before the upload');
    assert.equal(upload.server.batches.batches.length, 0, 'nothing created');
  })();

  // After the create, before our record: the provider made the batch, its answer is held; the worker dies.
  const create = await setup('kill-create');
  const heldCreate = create.server.batches.holdNext('create');
  const c2 = await t.spawnWorker(create.queues.prefix, create.env);
  const h2 = await start(create);
  const killed2 = (async () => {
    await heldCreate.arrived;
    await kill(c2);
    heldCreate.release();
    assert.equal(rowOf(create)?.status, 'preparing', 'the batch id never recorded');
    assert.equal(create.server.batches.batches.length, 1, 'the provider holds the batch');
  })();

  // While polling: the batch runs at the provider, the workflow waits on its timer after a few looks; the worker dies.
  const poll = await setup('kill-poll');
  poll.server.batches.delayMs = 600_000;
  const c3 = await t.spawnWorker(poll.queues.prefix, poll.env);
  const h3 = await start(poll);
  const killed3 = (async () => {
    await until(() => rowOf(poll)?.status === 'submitted' && poll.server.batches.calls.retrieve >= 2, 120_000, 'the batch polled twice');
    await kill(c3);
    assert.equal(rowOf(poll)?.status, 'submitted');
    poll.server.batches.batches[0].ends_ms = Date.now(); // the provider finishes it while no worker runs
  })();

  // Inside the ingest transaction: after 5 of its 12 rows a trigger stalls it (an endless cross join), so the worker
  // is killed holding the write lock, with rows written and not committed.
  const ingest = await setup('kill-ingest');
  new EmbeddingLedger(ingest.ledger).close(); // creates embed_batches for the trigger
  armStall(ingest.ledger, 'embed_batches', 5);
  const c4 = await t.spawnWorker(ingest.queues.prefix, ingest.env);
  const h4 = await start(ingest);
  const killed4 = (async () => {
    await until(() => rowOf(ingest)?.status === 'ended' && writerBusy(ingest.ledger), 120_000, 'the ingest transaction open');
    await kill(c4);
    await h4.terminate('the sweep was killed while ingesting; a new one is started, as a rerun of the CLI would');
    // Nothing half-written: no row of the batch, the batch not marked ingested.
    assert.equal(ledgerRows(ingest).length, 0, 'no ledger row of the killed transaction');
    assert.equal(rowOf(ingest)?.status, 'ended');
    disarmStall(ingest.ledger);
  })();

  await Promise.all([killed1, killed2, killed3, killed4]);
  for (const r of [upload, create, poll, ingest]) await recover(r);
  const results = await Promise.all([h1.result(), h2.result(), h3.result(), start(ingest, `${ingest.name}-rerun-${ingest.queues.prefix}`).then((h) => h.result())]);

  const runs = [upload, create, poll, ingest];
  let invoices = 0;
  results.forEach((res, i) => {
    const c = res.results[0];
    assert.equal(c.status, 'ok', `${runs[i].name}: ${c.reason}`);
    // The real-time path's counts: every text of the benchmark; what this sweep did not embed was in the cache.
    assert.equal(c.stats!.texts, TEXTS);
    assert.equal(c.stats!.unique_texts, TEXTS);
    assert.equal(c.stats!.cached + c.stats!.embedded, TEXTS, runs[i].name);
    invoices += checkRun(runs[i], reference);
  });
  // The rerun after the kill inside the ingest transaction ingested the batch (once): its texts count as embedded
  // by it, though the killed worker had already put their vectors in the cache before the transaction.
  assert.equal(results[3].results[0].stats!.embedded, TEXTS);
  assert.ok(upload.server.batches.calls.upload >= 2, 'the upload whose answer was lost was made again');
  assert.ok(create.server.batches.calls.list >= 1, 'the batch whose create answer was lost was looked for before creating');
  console.error(`4 kills, 4 batches, ${4 * TEXTS} texts billed once each; invoices $${invoices.toFixed(8)} = audits`);
});
