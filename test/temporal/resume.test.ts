/**
 * Durability, with a real dev server persisted to a database file:
 * (1) the worker process is SIGKILLed mid-run and a fresh one takes over;
 * (2) the dev server itself is stopped and restarted from its database file mid-run;
 * (3) the registry phase's worker is SIGKILLed with a call in flight and the phase is run again.
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
import { generateRegistry } from '../../workflows/generateRegistry.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import type { RegistryEntry } from '../../core/generation/types.ts';
import { auditRun } from '../../core/generation/audit.ts';
import { loadPriceTable } from '../../activities/generation/files.ts';

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

test('registry phase: worker SIGKILLed with a call in flight, a new run of the phase reconciles it to lost, reuses answered domains, and the audit brackets the invoice', async () => {
  const queues = t.uniqueQueues();
  const runId = `regkill-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const domains = ['geometry', 'collections', 'strings'].map((d) => `${d}_${queues.prefix.replace(/[^a-z0-9]/gi, '')}`);
  const input = {
    runId, runDir, queues, domains, perDomain: 3, maxAttempts: 2, promptId: 'registry.v1',
    // The output cap sized to the task, as `generate --max-output-tokens` does: the fake's answer for 3 functions is
    // ~175 tokens (37 of them reasoning), so 320 leaves 1.8x that. The lost call's bound is priced at this cap; a cap
    // of 2x the reply or more would put the bound past 2x the real cost whatever the input count (output is 8x input's price).
    settings: { provider: 'openai', model: 'gpt-5.4', endpoint: 'responses', reasoning_effort: 'high', max_output_tokens: 320 },
  } as Parameters<typeof generateRegistry>[0];
  const answered = (d: string) => fake.log.filter((l) => l.subject === `registry:${d}` && l.status === 200).length;
  fake.delayMs = 400;
  const first = await t.spawnWorker(queues.prefix, fake.env);
  const killed = await t.client.workflow.start(generateRegistry, { taskQueue: queues.default, workflowId: `${runId}/registry`, args: [input] });
  // Kill once the first domain is answered and the second one's call is held by the provider.
  await until(() => answered(domains[0]) === 1 && fake.inflight > 0, 120_000, 'one domain answered and a call in flight');
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  await killed.terminate('worker killed; the phase is run again, as a rerun of `generate registry` would');
  await until(() => fake.inflight === 0, 10_000, 'the held call answered by the provider (to a dead worker)');

  await t.spawnWorker(queues.prefix, fake.env);
  const result = await t.client.workflow.execute(generateRegistry, { taskQueue: queues.default, workflowId: `${runId}/registry`, args: [input] });
  fake.delayMs = 0;
  assert.equal(result.entries, 9);
  assert.equal(result.reconciled_lost_calls, 1, 'the call in flight at the kill, reconciled when the phase started again');
  assert.equal(answered(domains[0]), 1, 'the domain answered before the kill is reused from the ledger, not asked again');

  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  const calls = ledger.calls(runId);
  ledger.close();
  assert.equal(calls.filter((c) => c.status === 'started').length, 0);
  const lost = calls.filter((c) => c.status === 'lost');
  assert.equal(lost.length, 1);
  assert.equal(lost[0].entry_id, `registry:${domains[1]}`);
  assert.ok((lost[0].input_tokens_est ?? 0) > 0 && (lost[0].cost_usd_max ?? 0) > 0, 'the lost call keeps its bounds');
  for (const d of domains) {
    const ok = calls.filter((c) => c.entry_id === `registry:${d}` && c.status === 'ok');
    assert.equal(ok.length, 1, `${d}: one answered call`);
    // The provider answered the lost call too (to the dead worker): answers = ok rows + that one.
    assert.equal(answered(d), ok.length + (d === domains[1] ? 1 : 0), `${d}: provider answers`);
  }
  const names = new Set(domains.map((d) => `registry:${d}`));
  const invoice = fake.log.filter((l) => l.usage && l.subject && names.has(l.subject)).reduce((s, l) => s + costOf(l.usage!), 0);
  const audit = auditRun(calls, loadPriceTable());
  assert.ok(audit.totals.cost_usd < invoice, 'the lost call was billed and is not in the billed total');
  assert.ok(invoice <= audit.totals.cost_usd + audit.totals.lost_cost_usd_max + 1e-9, `invoice $${invoice} within audit $${audit.totals.cost_usd} + lost bound $${audit.totals.lost_cost_usd_max}`);
  // The lost call's real cost is what the provider billed beyond the answered calls (it answered the dead worker;
  // its usage is in the provider's log, never in the ledger). The bound holds it and is within 2x of it: the input
  // is exact (the rerun sent the identical prompt and its answer reported the count), the output at the cap.
  const lostReal = invoice - audit.totals.cost_usd;
  const lostLog = fake.log.filter((l) => l.subject === `registry:${domains[1]}` && l.usage);
  assert.equal(audit.totals.lost_input_exact_calls, 1, 'the lost call\'s input tokens come from the answered call with the same prompt');
  assert.equal(audit.totals.lost_input_tokens_est, lostLog[0].usage!.input_tokens, 'exact input tokens: what the provider reported for that prompt');
  assert.ok(audit.totals.lost_cost_usd_max >= lostReal - 1e-12, `bound $${audit.totals.lost_cost_usd_max} >= real $${lostReal}`);
  assert.ok(audit.totals.lost_cost_usd_max <= 2 * lostReal, `bound $${audit.totals.lost_cost_usd_max} within 2x of the lost call's real cost $${lostReal}`);
  // Without the exact count (one token per prompt byte) the same call's bound is looser: what the twin buys.
  const recorded = auditRun(calls).totals.lost_cost_usd_max;
  console.error(`lost call: real $${lostReal.toFixed(7)}, bound $${audit.totals.lost_cost_usd_max.toFixed(7)} (${(audit.totals.lost_cost_usd_max / lostReal).toFixed(2)}x), byte bound $${recorded.toFixed(7)} (${(recorded / lostReal).toFixed(2)}x)`);
  assert.ok(recorded >= audit.totals.lost_cost_usd_max);
});
