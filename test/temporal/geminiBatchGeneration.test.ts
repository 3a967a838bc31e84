/**
 * `generate benchmark --batch` with a Gemini generator end to end: a real dev server, the real @google/genai SDK's
 * `ai.batches` against the fake provider's Gemini batch mode, the real gate and oracle. Checked against the fake's
 * own log (the invoice) and against the real-time path on the same scripted answers:
 *  - outputs: the same entries accepted / rejected with the same attempt histories, and the same release files
 *    (apart from the cost, billed at batch prices, and timestamps);
 *  - billing: one billed request per (entry, attempt), each in exactly one batch, one batch per round;
 *  - the audit equals the invoice at Gemini's batch price, and `audit --check-batches` finds no difference.
 * Faults: the create's answer lost (the batch exists, its name unknown to us: found again through the list by its
 * display name), and a worker process SIGKILLed after the create and before the batch's name was recorded (that
 * batch answers in a responses file, as Gemini does for large results). Then `generate registry --batch`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { benchmarkInput, FAST, writeRegistry } from './genSupport.ts';
import { buildBenchmark } from '../../workflows/buildBenchmark.ts';
import { batchBenchmark, type BatchBenchmarkInput } from '../../workflows/batchBenchmark.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { BatchStore } from '../../activities/batch/store.ts';
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
const PRICE = JSON.parse(readFileSync('data/prices.json', 'utf8')).batch.models['gemini/gemini-2.5-pro'] as { input: number; output: number };
const settings = { provider: 'gemini' as const, model: 'gemini-2.5-pro', endpoint: 'generateContent', reasoning_effort: 'low', max_output_tokens: 8000 };
const generator = { kind: 'llm' as const, settings, promptId: 'entry.v1' };

function batchInput(runId: string, runDir: string, queues: TaskQueues): BatchBenchmarkInput {
  const { pageSize: _p, retryRejected: _r, ...rest } = benchmarkInput(runId, runDir, queues, { generator });
  return { ...rest, pollFirstMs: 50, pollMaxMs: 400 };
}

function release(runDir: string) {
  const strip = (r: { metadata?: Record<string, unknown> }) => {
    const { cost_usd: _c, generated_at: _g, ...metadata } = r.metadata ?? {};
    return { ...r, metadata };
  };
  return { queries: readJsonl(join(runDir, 'queries.jsonl')).map(strip), corpus: readJsonl(join(runDir, 'corpus.jsonl')).map(strip) };
}

const entryFile = (runDir: string, id: string) => JSON.parse(readFileSync(join(runDir, 'entries', `${id}.json`), 'utf8')) as EntryResult;

/** One billed request per (entry, attempt), every batch a recorded round, audit = invoice at the Gemini batch price. */
function checkBatchRun(runDir: string, runId: string, created: FakeBatch[]): { rounds: number } {
  const ids = new Set(created.map((b) => b.id));
  const billed = fake.log.filter((l) => l.batch_id && ids.has(l.batch_id) && l.usage);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  const store = new BatchStore(join(runDir, 'ledger.sqlite'));
  try {
    const calls = ledger.calls(runId);
    const answered = calls.filter((c) => c.status === 'ok');
    assert.equal(billed.length, answered.length, `billed ${billed.length} vs answered rows ${answered.length}`);
    const keys = answered.map((c) => `${c.entry_id}#${c.attempt_no}`);
    assert.equal(new Set(keys).size, keys.length, 'no (entry, attempt) answered twice');
    const rows = store.list(runId);
    assert.deepEqual(created.map((b) => b.id).sort(), rows.map((r) => r.batch_id).sort(), 'every batch at the provider is one recorded round');
    assert.equal(new Set(created.map((b) => b.display_name)).size, created.length, 'one batch per round');
    assert.ok(rows.every((r) => r.status === 'ingested'));
    const invoice = billed.reduce((s, l) => s + (l.usage!.input_tokens * PRICE.input + l.usage!.output_tokens * PRICE.output) / 1e6, 0);
    const audit = auditRun(calls);
    assert.ok(invoice > 0);
    assert.ok(Math.abs(audit.totals.cost_usd - invoice) < 1e-8, `audit $${audit.totals.cost_usd} vs invoice $${invoice}`);
    assert.equal(audit.totals.lost_calls, 0);
    assert.equal(audit.totals.input_tokens, billed.reduce((s, l) => s + l.usage!.input_tokens, 0));
    assert.equal(audit.totals.output_tokens, billed.reduce((s, l) => s + l.usage!.output_tokens, 0));
    assert.deepEqual(ledger.duplicateAcceptances(runId), []);
    return { rounds: rows.length };
  } finally {
    ledger.close();
    store.close();
  }
}

/** A parse error, a gate rejection and a server error inside the batch, each answered right the next time. */
function scriptAnswers(names: string[]): void {
  fake.script(names[1], ['gate_fail', 'good']);
  fake.script(names[2], ['malformed', 'good']);
  fake.script(names[3], ['500', 'good']);
}

test('gemini generator through batch mode: same outcomes and release as the real-time path, the create answer lost (found again through the list), one billed request per (entry, attempt), audit = invoice', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const rtId = `gm-rt-${queues.prefix}`;
  const rtDir = join(t.tmp, rtId);
  scriptAnswers(writeRegistry(rtDir, 6, 'gmbatch').map((e) => e.function_name));
  await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${rtId}/benchmark`, args: [benchmarkInput(rtId, rtDir, queues, { pageSize: 50, generator })] });

  const runId = `gm-batch-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 6, 'gmbatch');
  scriptAnswers(entries.map((e) => e.function_name));
  const before = fake.batch.batches.length;
  const logged = fake.log.length;
  const lists = fake.batch.calls.list;
  // Round 1's create reaches the provider and its answer is lost: the retry must find that batch, not make another.
  fake.batch.dropNext('create');
  fake.batch.delayMs = 300;
  const r = await t.client.workflow.execute(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
  fake.batch.delayMs = 0;
  assert.equal(r.tally.accepted, 6);
  assert.equal(r.finalize!.released_queries, 6);
  assert.equal(fake.log.slice(logged).filter((l) => !l.batch_id).length, 0, 'no real-time request');
  const created = fake.batch.batches.slice(before);
  assert.ok(created.every((b) => b.provider === 'gemini'));
  for (const e of entries) {
    const a = entryFile(rtDir, e.entry_id);
    const b = entryFile(runDir, e.entry_id);
    assert.equal(b.status, a.status, e.entry_id);
    assert.deepEqual(b.task, a.task, e.entry_id);
    assert.deepEqual(b.attempts.map((x) => [x.attempt_no, x.outcome, x.reasons, x.usage]), a.attempts.map((x) => [x.attempt_no, x.outcome, x.reasons, x.usage]), e.entry_id);
  }
  // The gate's reasons went into the next round's batch.
  const regen = fake.log.filter((l) => l.batch_id && ids(created).has(l.batch_id) && l.subject === entries[1].function_name);
  assert.equal(regen.length, 2);
  assert.match(regen[1].prompt, /was rejected for these reasons:[\s\S]*distractor_execution/);
  assert.deepEqual(release(runDir), release(rtDir));
  // Round 1 (6 requests; its create answer lost, the batch adopted), round 2 (the three answered wrong).
  assert.equal(checkBatchRun(runDir, runId, created).rounds, 2);
  assert.equal(created.length, 2, 'the batch whose create answer was lost was adopted, not created again');
  assert.equal(created[1].requests.length, 3);
  assert.ok(fake.batch.calls.list - lists >= 1, 'the preparing round asked the list');
  // audit --check-batches reads the batches' inline results again: the ledger matches them.
  const checks = await checkBatchesAgainstProvider(runDir, runId, fake.env);
  assert.equal(checks.length, 2);
  assert.deepEqual(checks.flatMap((c) => c.differences), []);
  assert.equal(checks.reduce((a, c) => a + c.answered, 0), 8);
});

const ids = (bs: FakeBatch[]) => new Set(bs.map((b) => b.id));

test('gemini: SIGKILL of the worker process after the provider created the batch and before its name was recorded: the next worker adopts it, nothing is submitted twice; its results read from a responses file', async () => {
  const queues = t.uniqueQueues();
  const runId = `gm-kill-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  writeRegistry(runDir, 4, 'gmkill');
  const before = fake.batch.batches.length;
  const held = fake.batch.holdNext('create');
  // This batch answers in a responses file (as Gemini does for large results), not inline.
  fake.batch.geminiResultsAsFile = true;
  const child = await t.spawnWorker(queues.prefix, fake.env);
  const handle = await t.client.workflow.start(batchBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [batchInput(runId, runDir, queues)] });
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
  const r = await handle.result().finally(() => (fake.batch.geminiResultsAsFile = false));
  assert.equal(r.tally.accepted, 4);
  const created = fake.batch.batches.slice(before);
  assert.equal(created.length, 1, 'the batch created before the kill was adopted');
  assert.ok(created[0].results_as_file && created[0].output_file_id, 'answered in a file');
  assert.equal(checkBatchRun(runDir, runId, created).rounds, 1);
  const checks = await checkBatchesAgainstProvider(runDir, runId, fake.env);
  assert.deepEqual(checks.flatMap((c) => c.differences), []);
  assert.equal(checks[0].answered, 4);
});

test('gemini generate registry through batch mode: the malformed domain again in round 2 with its parse error; the same registry as the real-time path; audit = invoice', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const domains = ['geometry', 'validation'];
  const input = (runId: string) => ({ runId, runDir: join(t.tmp, runId), settings, promptId: 'registry.v1', domains, perDomain: 3, maxAttempts: 3, queues, activityOverrides: FAST });
  const { generateRegistry } = await import('../../workflows/generateRegistry.ts');
  const { batchRegistry } = await import('../../workflows/batchRegistry.ts');
  const rtId = `gm-reg-rt-${queues.prefix}`;
  fake.script('registry:validation', ['malformed', 'good']);
  await t.client.workflow.execute(generateRegistry, { taskQueue: queues.default, workflowId: `${rtId}/registry`, args: [input(rtId)] });
  const runId = `gm-reg-batch-${queues.prefix}`;
  fake.script('registry:validation', ['malformed', 'good']);
  const before = fake.batch.batches.length;
  const r = await t.client.workflow.execute(batchRegistry, { taskQueue: queues.default, workflowId: `${runId}/registry`, args: [{ ...input(runId), pollFirstMs: 50, pollMaxMs: 400 }] });
  assert.equal(r.rounds, 2);
  assert.deepEqual(r.failed_domains, []);
  assert.equal(readFileSync(join(t.tmp, runId, 'registry.jsonl'), 'utf8'), readFileSync(join(t.tmp, rtId, 'registry.jsonl'), 'utf8'));
  const created = fake.batch.batches.slice(before);
  const retried = fake.log.filter((l) => l.batch_id && ids(created).has(l.batch_id) && l.subject === 'registry:validation');
  assert.equal(retried.length, 2);
  assert.match(retried[1].prompt, /could not be used:[\s\S]*no JSON object/);
  assert.equal(checkBatchRun(join(t.tmp, runId), runId, created).rounds, 2);
});
