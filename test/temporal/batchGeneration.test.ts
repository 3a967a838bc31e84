/**
 * `generate benchmark --batch` end to end: a real dev server, the real `openai` SDK's files and batches methods
 * against the fake provider's Batch API, the real gate and oracle. Checked against the fake's own log (the
 * invoice) and against the real-time path run on the same scripted answers:
 *  - outputs: the same entries accepted / rejected with the same tasks, and the same release files (apart from
 *    the cost, billed at batch prices, and timestamps);
 *  - billing: one billed request per (entry, attempt), each in exactly one batch;
 *  - the audit equals the invoice at batch prices.
 * The second test loses the provider's answer at each step (upload, create, status, output download) and stops
 * the worker while the workflow waits on its timer: still one batch per round, and the same three checks. Then a
 * worker process SIGKILLed after the create (before its id is recorded), while the workflow polls a running batch,
 * and inside the ingest transaction (a trigger stalls it after 2 of its 4 rows: test/support/stallTransaction.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer, type LoggedRequest } from '../fake-provider/llm-server.ts';
import { benchmarkInput, FAST as FAST_OVERRIDES, writeRegistry } from './genSupport.ts';
import { buildBenchmark } from '../../workflows/buildBenchmark.ts';
import { batchBenchmark, type BatchBenchmarkInput } from '../../workflows/batchBenchmark.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { BatchStore, readBatchRows } from '../../activities/batch/store.ts';
import { armStall, disarmStall, writerBusy } from '../support/stallTransaction.ts';
import { auditRun } from '../../core/generation/audit.ts';
import { checkBatchesAgainstProvider } from '../../activities/batch/verify.ts';
import type { EntryResult } from '../../core/generation/types.ts';
import type { TaskQueues } from '../../temporal.config.ts';
import type { FakeBatch } from '../fake-provider/batch-api.ts';

let t: TestTemporal;
let fake: FakeLlmServer;
before(async () => {
  [t, fake] = await Promise.all([startTestTemporal(), startFakeLlmServer()]);
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

const readJsonl = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const N = 12;
const PRICES = JSON.parse(readFileSync('data/prices.json', 'utf8'));
const BATCH_PRICE = PRICES.batch.models['openai/gpt-5.4'];

/** The same answers for both paths: a parse error, a gate rejection, a server error, and one entry rejected three times. */
function scriptAnswers(names: string[]): void {
  fake.script(names[2], ['malformed', 'good']);
  fake.script(names[4], ['gate_fail', 'good']);
  fake.script(names[6], ['500', 'good']);
  fake.script(names[8], ['gate_fail', 'gate_fail', 'gate_fail']);
}

function batchInput(runId: string, runDir: string, queues: TaskQueues, over: Partial<BatchBenchmarkInput> = {}): BatchBenchmarkInput {
  const { pageSize: _p, retryRejected: _r, ...rest } = benchmarkInput(runId, runDir, queues);
  return { ...rest, pollFirstMs: 50, pollMaxMs: 400, ...over };
}

/** Release rows without what legitimately differs between the two paths (price paid, timestamps). */
function release(runDir: string) {
  const strip = (r: { metadata?: Record<string, unknown> }) => {
    const { cost_usd: _c, generated_at: _g, ...metadata } = r.metadata ?? {};
    return { ...r, metadata };
  };
  return { queries: readJsonl(join(runDir, 'queries.jsonl')).map(strip), corpus: readJsonl(join(runDir, 'corpus.jsonl')).map(strip) };
}

function entryFile(runDir: string, id: string): EntryResult {
  return JSON.parse(readFileSync(join(runDir, 'entries', `${id}.json`), 'utf8')) as EntryResult;
}

/** The invariants every batch run must keep, whatever was killed on the way. */
function checkBatchRun(runDir: string, runId: string, opts: { created?: FakeBatch[]; price?: { input: number; output: number } } = {}) {
  // Every batch the provider holds for this run (by the metadata it was created with; Anthropic's carry none, so the
  // test names them), and what it billed.
  const created = opts.created ?? fake.batch.batches.filter((b) => b.metadata?.execretrieval_run === runId);
  const price = opts.price ?? BATCH_PRICE;
  const ids = new Set(created.map((b) => b.id));
  const billed = fake.log.filter((l: LoggedRequest) => l.batch_id && ids.has(l.batch_id) && l.usage);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  const store = new BatchStore(join(runDir, 'ledger.sqlite'));
  try {
    const calls = ledger.calls(runId);
    const answered = calls.filter((c) => c.status === 'ok');
    // One billed request per (entry, attempt): the provider answered each answered ledger row once, and only those.
    assert.equal(billed.length, answered.length, `billed ${billed.length} vs answered rows ${answered.length}`);
    const keys = answered.map((c) => `${c.entry_id}#${c.attempt_no}`);
    assert.equal(new Set(keys).size, keys.length, 'no (entry, attempt) answered twice');
    // Every batch the provider holds for this run is one recorded round; no round was created twice.
    const rows = store.list(runId);
    assert.deepEqual(created.map((b) => b.id).sort(), rows.map((r) => r.batch_id).sort());
    if (!opts.created) assert.equal(new Set(created.map((b) => b.metadata!.execretrieval_round)).size, created.length, 'one batch per round');
    assert.ok(rows.every((r) => r.status === 'ingested'));
    // Audit = invoice, at batch prices, to a millionth of a cent.
    const invoice = billed.reduce((s, l) => s + (l.usage!.input_tokens * price.input + l.usage!.output_tokens * price.output) / 1e6, 0);
    const audit = auditRun(calls);
    assert.ok(Math.abs(audit.totals.cost_usd - invoice) < 1e-8, `audit $${audit.totals.cost_usd} vs invoice $${invoice}`);
    assert.equal(audit.totals.lost_calls, 0);
    assert.equal(audit.totals.input_tokens, billed.reduce((s, l) => s + l.usage!.input_tokens, 0));
    assert.deepEqual(ledger.duplicateAcceptances(runId), []);
    return { rounds: rows.length, invoice };
  } finally {
    ledger.close();
    store.close();
  }
}

let reference: { runDir: string } | null = null;

test('12 entries through the Batch API: same outcomes and release as the real-time path, one billed request per (entry, attempt), audit = invoice', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });

  // The real-time path on the scripted answers.
  const rtId = `rt-${queues.prefix}`;
  const rtDir = join(t.tmp, rtId);
  const rtEntries = writeRegistry(rtDir, N, 'batchcmp');
  scriptAnswers(rtEntries.map((e) => e.function_name));
  await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${rtId}/benchmark`, args: [benchmarkInput(rtId, rtDir, queues, { pageSize: 50 })] });

  // The same registry (same names, so the same answers) and scripts, through batches.
  const runId = `batch-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, N, 'batchcmp');
  const names = entries.map((e) => e.function_name);
  scriptAnswers(names);
  fake.batch.delayMs = 150;
  const before = fake.log.length;
  const r = await t.client.workflow.execute(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
  fake.batch.delayMs = 0;
  assert.equal(fake.log.slice(before).filter((l) => !l.batch_id).length, 0, 'no real-time request');
  assert.equal(r.tally.accepted, N - 1);
  assert.equal(r.tally.rejected, 1);
  assert.equal(r.finalize!.released_queries, N - 1);

  // Outcomes and attempt histories as on the real-time path.
  for (const e of entries) {
    const a = entryFile(rtDir, e.entry_id);
    const b = entryFile(runDir, e.entry_id);
    assert.equal(b.status, a.status, e.entry_id);
    assert.deepEqual(b.task, a.task, e.entry_id);
    assert.deepEqual(b.attempts.map((x) => [x.attempt_no, x.outcome, x.reasons, x.usage]), a.attempts.map((x) => [x.attempt_no, x.outcome, x.reasons, x.usage]), e.entry_id);
  }
  // The regeneration prompt carried the gate's reasons, in the next round's batch.
  const second = fake.log.filter((l) => l.batch_id && l.subject === names[4]);
  assert.equal(second.length, 2);
  assert.notEqual(second[0].batch_id, second[1].batch_id);
  assert.match(second[1].prompt, /was rejected for these reasons:[\s\S]*distractor_execution/);
  // The release files: identical but for the price paid and the timestamps; batch_usage the same tokens.
  assert.deepEqual(release(runDir), release(rtDir));

  const { rounds } = checkBatchRun(runDir, runId);
  // Round 1: 12 requests; round 2: the parse error, the rejection and the 500 again, and the second of three rejections; round 3: the third.
  assert.equal(rounds, 3);
  reference = { runDir };

  // A rerun of the finished run sends nothing.
  const sent = fake.log.length;
  const again = await t.client.workflow.execute(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
  assert.equal(fake.log.length, sent);
  assert.equal(again.tally.accepted, N - 1);
});

/** Waits for a condition the test does not control the timing of (a worker's progress). */
async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the provider answer lost at each step (upload, create, status, output download) and the worker stopped while the workflow waits: one batch per round, same outputs, audit = invoice', async () => {
  assert.ok(reference, 'runs after the reference test');
  const queues = t.uniqueQueues();
  const env = { ...process.env, ...fake.env };
  let workers = await t.startWorkers({ queues, deps: { env } });
  const runId = `faults-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, N, 'batchcmp');
  const names = entries.map((e) => e.function_name);
  scriptAnswers(names);
  const calls0 = { ...fake.batch.calls };
  // Round 1: the upload's answer is lost (before create), then the create's (the batch exists, its id unknown
  // here), then a status read's, then the output file's download (while ingesting).
  for (const route of ['upload', 'create', 'retrieve', 'content'] as const) fake.batch.dropNext(route);
  fake.batch.delayMs = 1_500;
  const handle = await t.client.workflow.start(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
  // Stop every worker while round 1's batch runs (the workflow is on its timer), then start fresh ones.
  await until(() => fake.batch.batches.some((b) => b.metadata?.execretrieval_run === runId), 60_000, "round 1's batch");
  await workers.shutdown();
  fake.batch.delayMs = 100;
  workers = await t.startWorkers({ queues, deps: { env } });
  const r = await handle.result();
  fake.batch.delayMs = 0;

  assert.equal(r.tally.accepted, N - 1);
  // Each lost answer was followed by a retry of the same step.
  assert.ok(fake.batch.calls.upload - calls0.upload >= 4, 'the lost upload was made again (3 rounds + 1)');
  assert.ok(fake.batch.calls.list - calls0.list >= 2, 'a preparing round asked the provider before creating');
  const { rounds } = checkBatchRun(runDir, runId);
  assert.equal(rounds, 3);
  // The batch whose create answer was lost was adopted, not made again: every created batch is a recorded round.
  assert.equal(fake.batch.batches.filter((b) => b.metadata?.execretrieval_run === runId).length, 3);
  assert.deepEqual(release(runDir), release(reference!.runDir));
  for (const e of entries) assert.deepEqual(entryFile(runDir, e.entry_id).task, entryFile(reference!.runDir, e.entry_id).task);
});

test('SIGKILL of the worker process after the provider created the batch and before its id was recorded: the next worker adopts it, nothing is submitted twice', async () => {
  const queues = t.uniqueQueues();
  const runId = `sigkill-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  writeRegistry(runDir, 4, 'batchkill');
  const held = fake.batch.holdNext('create');
  const child = await t.spawnWorker(queues.prefix, fake.env);
  const handle = await t.client.workflow.start(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
  // The provider has created the batch; its answer is held back, and the worker dies before it can record the id.
  await held.arrived;
  child.kill('SIGKILL');
  held.release();
  const store = new BatchStore(join(runDir, 'ledger.sqlite'));
  try {
    assert.equal(store.get(runId, 'entry', 1)?.status, 'preparing', 'recorded before the create, not after');
  } finally {
    store.close();
  }
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const r = await handle.result();
  assert.equal(r.tally.accepted, 4);
  assert.equal(fake.batch.batches.filter((b) => b.metadata?.execretrieval_run === runId).length, 1, 'the batch created before the kill was adopted');
  const { rounds } = checkBatchRun(runDir, runId);
  assert.equal(rounds, 1);
});

test('SIGKILL of the worker process while the workflow polls a running batch: a fresh worker resumes the same workflow; one batch, nothing paid twice, audit = invoice', async () => {
  const queues = t.uniqueQueues();
  const runId = `pollkill-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  writeRegistry(runDir, 4, 'batchpoll');
  fake.batch.delayMs = 600_000; // still running at the provider when the worker dies
  const retrieves = fake.batch.calls.retrieve;
  const child = await t.spawnWorker(queues.prefix, fake.env);
  const handle = await t.client.workflow.start(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
  const ledger = join(runDir, 'ledger.sqlite');
  await until(() => existsSync(ledger) && readBatchRows(ledger, runId)[0]?.status === 'submitted' && fake.batch.calls.retrieve - retrieves >= 2, 120_000, 'the batch polled twice');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  fake.batch.delayMs = 0;
  const created = fake.batch.batches.filter((b) => b.metadata?.execretrieval_run === runId);
  assert.equal(created.length, 1);
  created[0].ends_ms = Date.now(); // the provider finishes it while no worker runs
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const r = await handle.result();
  assert.equal(r.tally.accepted, 4);
  assert.equal(fake.batch.batches.filter((b) => b.metadata?.execretrieval_run === runId).length, 1, 'polled again, never submitted again');
  assert.equal(checkBatchRun(runDir, runId).rounds, 1);
});

test('SIGKILL of the worker process inside the ingest transaction (2 of 4 ledger rows written): nothing committed; the retried ingestion writes each row once; audit = invoice', async () => {
  const queues = t.uniqueQueues();
  const runId = `ingestkill-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  writeRegistry(runDir, 4, 'batchingest');
  const ledger = join(runDir, 'ledger.sqlite');
  new Ledger(ledger).close(); // the calls table, for the trigger
  armStall(ledger, 'calls', 2);
  const child = await t.spawnWorker(queues.prefix, fake.env);
  const handle = await t.client.workflow.start(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
  // The batch has ended and ingestion holds the ledger's write lock: the transaction is open, stalled after 2 rows.
  await until(() => readBatchRows(ledger, runId)[0]?.status === 'ended' && writerBusy(ledger), 120_000, 'the ingest transaction open');
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const l = new Ledger(ledger);
  try {
    assert.equal(l.calls(runId).length, 0, 'no row of the killed transaction committed');
  } finally {
    l.close();
  }
  assert.equal(readBatchRows(ledger, runId)[0].status, 'ended', 'not marked ingested');
  disarmStall(ledger);
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const r = await handle.result();
  assert.equal(r.tally.accepted, 4);
  assert.equal(checkBatchRun(runDir, runId).rounds, 1);
});

test('anthropic generator through Message Batches: same outcomes and release as the real-time path, the create answer lost (found again through the list and the results by the key in each custom_id), audit = invoice', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const settings = { provider: 'anthropic' as const, model: 'claude-sonnet-4-6', endpoint: 'messages', reasoning_effort: 'low', max_output_tokens: 8000 };
  const generator = { kind: 'llm' as const, settings, promptId: 'entry.v1' };
  const rtId = `an-rt-${queues.prefix}`;
  const rtDir = join(t.tmp, rtId);
  const rtEntries = writeRegistry(rtDir, 6, 'anbatch');
  fake.script(rtEntries[1].function_name, ['gate_fail', 'good']);
  await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${rtId}/benchmark`, args: [benchmarkInput(rtId, rtDir, queues, { pageSize: 50, generator })] });

  const runId = `an-batch-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 6, 'anbatch');
  fake.script(entries[1].function_name, ['gate_fail', 'good']);
  const before = fake.batch.batches.length;
  const logged = fake.log.length;
  const calls0 = { ...fake.batch.calls };
  // Round 1's create reaches the provider and its answer is lost: the retry must find that batch, not make another.
  fake.batch.dropNext('create');
  fake.batch.delayMs = 300;
  const r = await t.client.workflow.execute(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues, { generator })] });
  fake.batch.delayMs = 0;
  assert.equal(r.tally.accepted, 6);
  assert.equal(fake.log.slice(logged).filter((l) => !l.batch_id).length, 0, 'no real-time request');
  const created = fake.batch.batches.slice(before);
  assert.ok(created.every((b) => b.provider === 'anthropic'));
  assert.ok(created.every((b) => b.requests.every((q) => /^k[0-9a-f]{24}_\d+-\d+$/.test(q.custom_id))), "each custom_id carries the round's key");
  for (const e of entries) {
    const a = entryFile(rtDir, e.entry_id);
    const b = entryFile(runDir, e.entry_id);
    assert.equal(b.status, a.status, e.entry_id);
    assert.deepEqual(b.attempts.map((x) => [x.attempt_no, x.outcome, x.reasons, x.usage]), a.attempts.map((x) => [x.attempt_no, x.outcome, x.reasons, x.usage]), e.entry_id);
  }
  assert.deepEqual(release(runDir), release(rtDir));
  // Round 1 (6 requests, its create answer lost and the batch adopted), round 2 (the rejected entry again).
  const { rounds } = checkBatchRun(runDir, runId, { created, price: PRICES.batch.models['anthropic/claude-sonnet-4-6'] });
  assert.equal(rounds, 2);
  assert.equal(created.length, 2, 'the batch whose create answer was lost was adopted, not created again');
  assert.ok(fake.batch.calls.list - calls0.list >= 1, 'the preparing round asked the list');
  assert.ok(fake.batch.calls.results - calls0.results >= 3, "the candidate's results read to find the key (then each round's ingestion)");
  // audit --check-batches reads Message Batches' results again: the ledger matches them.
  const checks = await checkBatchesAgainstProvider(runDir, runId, fake.env);
  assert.equal(checks.length, 2);
  assert.deepEqual(checks.flatMap((c) => c.differences), []);
  assert.equal(checks.reduce((a, c) => a + c.answered, 0), 7);
});

test('generate registry through batches: every domain in round 1, the malformed one again in round 2 with its parse error; the same registry as the real-time path; audit = invoice', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const domains = ['geometry', 'sorting_searching', 'validation'];
  const settings = { provider: 'openai' as const, model: 'gpt-5.4', endpoint: 'responses', reasoning_effort: 'high', max_output_tokens: 16000 };
  const input = (runId: string) => ({ runId, runDir: join(t.tmp, runId), settings, promptId: 'registry.v1', domains, perDomain: 4, maxAttempts: 3, queues, activityOverrides: FAST_OVERRIDES });
  const { generateRegistry } = await import('../../workflows/generateRegistry.ts');
  const { batchRegistry } = await import('../../workflows/batchRegistry.ts');
  const rtId = `reg-rt-${queues.prefix}`;
  fake.script('registry:validation', ['malformed', 'good']);
  await t.client.workflow.execute(generateRegistry, { taskQueue: queues.default, workflowId: `${rtId}/registry`, args: [input(rtId)] });
  const runId = `reg-batch-${queues.prefix}`;
  fake.script('registry:validation', ['malformed', 'good']);
  const r = await t.client.workflow.execute(batchRegistry, { taskQueue: queues.default, workflowId: `${runId}/registry`, args: [{ ...input(runId), pollFirstMs: 50, pollMaxMs: 400 }] });
  assert.equal(r.rounds, 2);
  assert.deepEqual(r.failed_domains, []);
  assert.equal(readFileSync(join(t.tmp, runId, 'registry.jsonl'), 'utf8'), readFileSync(join(t.tmp, rtId, 'registry.jsonl'), 'utf8'));
  const retried = fake.log.filter((l) => l.batch_id && l.subject === 'registry:validation' && fake.batch.batches.find((b) => b.id === l.batch_id)?.metadata?.execretrieval_run === runId);
  assert.equal(retried.length, 2);
  assert.match(retried[1].prompt, /could not be used:[\s\S]*no JSON object/);
  assert.match(retried[1].prompt, /already taken: geometry_amber_0/, "the names accepted in round 1 are listed as taken");
  const { rounds } = checkBatchRun(join(t.tmp, runId), runId);
  assert.equal(rounds, 2);
});
