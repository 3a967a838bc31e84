/**
 * Durability, with a real dev server persisted to a database file:
 * (1) the worker process is SIGKILLed mid-run and a fresh one takes over;
 * (2) the dev server itself is stopped and restarted from its database file mid-run.
 * In both, the run completes, no entry is lost, and the ledger shows no accepted entry generated twice and
 * every request the provider saw accounted for.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { benchmarkInput, writeRegistry } from './genSupport.ts';
import { buildBenchmark } from '../../workflows/buildBenchmark.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import type { RegistryEntry } from '../../core/generation/types.ts';
import { auditRun } from '../../core/generation/audit.ts';

const PRICE = { input: 1.25, output: 10.0 }; // data/prices.json openai/gpt-5.4, USD per million tokens
const costOf = (u: { input_tokens: number; output_tokens: number }) => (u.input_tokens * PRICE.input + u.output_tokens * PRICE.output) / 1e6;

let t: TestTemporal;
let fake: FakeLlmServer;
before(async () => {
  [t, fake] = await Promise.all([startTestTemporal({ persistent: true }), startFakeLlmServer()]);
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

const finished = (runDir: string) => (existsSync(join(runDir, 'entries')) ? readdirSync(join(runDir, 'entries')).length : 0);

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Ledger vs the provider's own log, per entry; and no entry accepted twice or called after acceptance. */
function checkLedger(runDir: string, runId: string, entries: RegistryEntry[]): { lost: number } {
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    assert.deepEqual(ledger.duplicateAcceptances(runId), []);
    const calls = ledger.calls(runId);
    let lost = 0;
    for (const e of entries) {
      const rows = calls.filter((c) => c.entry_id === e.entry_id);
      const seen = fake.log.filter((l) => l.subject === e.function_name).length;
      const notLost = rows.filter((c) => c.status !== 'lost').length;
      lost += rows.length - notLost;
      // Every request the server answered is a ledger row; a `lost` row may or may not have reached it.
      assert.ok(notLost <= seen && seen <= rows.length, `${e.entry_id}: server saw ${seen}, ledger ${notLost} + ${rows.length - notLost} lost`);
      assert.equal(rows.filter((c) => c.outcome === 'accepted').length, 1, `${e.entry_id} accepted once`);
    }
    // The invoice: what the provider billed (its own log) = the audit's billed total for answered calls, plus at most
    // the lost calls' upper bound for answers that never reached the ledger (the provider answered a dead worker).
    const names = new Set(entries.map((e) => e.function_name));
    const invoice = fake.log.filter((l) => l.usage && l.subject && names.has(l.subject)).reduce((s, l) => s + costOf(l.usage!), 0);
    const audit = auditRun(calls);
    assert.equal(audit.totals.lost_calls, lost);
    assert.ok(audit.totals.cost_usd <= invoice + 1e-9, `audit $${audit.totals.cost_usd} vs invoice $${invoice}`);
    assert.ok(invoice <= audit.totals.cost_usd + audit.totals.lost_cost_usd_max + 1e-9, `invoice $${invoice} within audit + lost bound $${audit.totals.lost_cost_usd_max}`);
    for (const c of calls.filter((x) => x.status === 'lost')) assert.ok((c.input_tokens_est ?? 0) > 0 && (c.cost_usd_max ?? 0) > 0, 'a lost call keeps its bounds');
    return { lost };
  } finally {
    ledger.close();
  }
}

test('SIGKILL of the worker process mid-run: a new worker finishes the run, nothing lost or paid twice', async () => {
  const queues = t.uniqueQueues();
  const runId = `kill-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 8, 'killed');
  fake.delayMs = 300;
  const first = await t.spawnWorker(queues.prefix, fake.env);
  const handle = await t.client.workflow.start(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues, { concurrency: 3, pageSize: 50 })],
  });
  // Kill while the provider holds a request of this worker: that call must come back as `lost`.
  await until(() => finished(runDir) >= 2 && fake.inflight > 0, 120_000, 'two finished entries and a call in flight');
  first.kill('SIGKILL');
  const doneAtKill = finished(runDir);
  assert.ok(doneAtKill < 8, 'killed mid-run');
  const t0 = Date.now();
  await t.spawnWorker(queues.prefix, fake.env);
  console.error(`replacement worker polling after ${Date.now() - t0} ms`);
  const result = await handle.result();
  fake.delayMs = 0;
  assert.equal(result.tally.accepted, 8);
  assert.equal(result.finalize!.released_queries, 8);
  const { lost } = checkLedger(runDir, runId, entries);
  assert.ok(lost >= 1, 'the call in flight at the kill is in the ledger as lost');
});

test('dev server stopped and restarted from its database file mid-run: the run completes', async () => {
  const queues = t.uniqueQueues();
  const runId = `restart-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 6, 'restarted');
  fake.delayMs = 300;
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const handle = await t.client.workflow.start(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues, { concurrency: 2, pageSize: 50 })],
  });
  await until(() => finished(runDir) >= 2, 120_000, 'two finished entries');
  await t.restartServer();
  assert.ok(finished(runDir) < 6, 'restarted mid-run');
  const result = await handle.result();
  fake.delayMs = 0;
  assert.equal(result.tally.accepted, 6);
  assert.equal(result.finalize!.released_queries, 6);
  checkLedger(runDir, runId, entries);
});
