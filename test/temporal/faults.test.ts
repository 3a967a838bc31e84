/**
 * Generation under faults, against a real dev server, the real SDKs and the fake provider, counting every request
 * in the provider's own log against the ledger:
 * (1) the gate's oracle faults (infra_error twice): entries end `infra_error`, never `rejected` or "provider
 *     error", nothing is finalised, and the rerun after the fix judges the stored responses without a new call;
 * (2) an answer already in the ledger whose workflow never judged it is used, not re-requested; a row a dead
 *     worker left `started` is reconciled to `lost` and its attempt is made again under the same number;
 * (3) with --max-attempts 1, an entry whose provider kept failing is retried by the next run (not `rejected`).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { benchmarkInput, writeRegistry } from './genSupport.ts';
import { buildBenchmark } from '../../workflows/buildBenchmark.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { createExecActivities } from '../../activities/generation/execActivities.ts';
import { createBatchExecActivities } from '../../activities/batch/batchExecActivities.ts';
import { generateEntryDirect } from '../generation/directGeneration.ts';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { ACTIVITY_PROVIDERS, type ActivityProvider } from '../../workers/registry.ts';
import type { EntryResult, RegistryEntry } from '../../core/generation/types.ts';
import { auditRun } from '../../core/generation/audit.ts';

let t: TestTemporal;
let fake: FakeLlmServer;
let oracle: Oracle;
/** While true, every oracle run answers as a sandbox fault would (an infra_error result). */
let faulty = false;
let oracleCalls = 0;

before(async () => {
  [t, fake] = await Promise.all([startTestTemporal(), startFakeLlmServer()]);
  oracle = await openOracle({ cachePath: join(t.tmp, 'exec-cache.sqlite'), concurrency: 2 });
});
after(async () => {
  await oracle?.close();
  await t?.stop();
  await fake?.close();
});

const switchable: Oracle = {
  run: async (req) => {
    oracleCalls += 1;
    return faulty ? { outcomes: [], wall_ms: 0, passed: false, cached: false, infra_error: 'test sandbox: fork server died (SIGKILL from outside)' } : oracle.run(req);
  },
  runMany: (reqs, opts) => Promise.all(reqs.map((r) => switchable.run(r))).then((rs) => (opts?.onProgress?.(rs.length, rs.length), rs)),
  close: async () => {},
};
const providers: ActivityProvider[] = [
  ...ACTIVITY_PROVIDERS.filter((p) => p.name !== 'generation:exec' && p.name !== 'generation:finalize'),
  { queue: 'exec', name: 'generation:exec', create: () => ({ activities: createExecActivities({ oracle: async () => switchable }) }) },
  // Finalising is the coordinator's (default queue), on an oracle of its own: the same switchable one here.
  { queue: 'default', name: 'generation:finalize', create: () => ({ activities: { finalizeBenchmark: createExecActivities({ oracle: async () => switchable }).finalizeBenchmark, ...createBatchExecActivities({ oracle: async () => switchable }) } }) },
];

const requestsFor = (e: RegistryEntry) => fake.log.filter((l) => l.subject === e.function_name).length;
const hist = (runDir: string, id: string) => JSON.parse(readFileSync(join(runDir, 'entries', `${id}.json`), 'utf8')) as EntryResult;

/** Every (entry, attempt) the ledger has was requested from the provider once, and the provider saw nothing else. */
function assertOneRequestPerAttempt(runDir: string, runId: string, entries: RegistryEntry[]): void {
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    const calls = ledger.calls(runId).filter((c) => c.phase === 'entry');
    for (const e of entries) {
      const ok = calls.filter((c) => c.entry_id === e.entry_id && c.status === 'ok');
      const attempts = new Set(ok.map((c) => c.attempt_no));
      assert.equal(ok.length, attempts.size, `${e.entry_id}: one answered request per attempt`);
      assert.equal(fake.log.filter((l) => l.subject === e.function_name && l.status === 200).length, ok.length, `${e.entry_id}: provider answers = ledger ok rows`);
    }
    assert.deepEqual(ledger.duplicateAcceptances(runId), []);
  } finally {
    ledger.close();
  }
}

test('gate oracle faults: infra_error (not rejected, not provider error), no finalize; the rerun judges the stored answers without paying again', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, providers, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `infra-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 5, 'infra');
  faulty = true;
  oracleCalls = 0;
  const first = await t.client.workflow.execute(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues, { concurrency: 2, pageSize: 50 })],
  });
  assert.equal(first.finalize, null);
  assert.match(first.tally.infra_fault ?? '', /fork server died .*nothing was scored or judged/);
  assert.equal(first.tally.rejected, 0);
  assert.equal(first.tally.provider_error, 0);
  assert.equal(first.tally.accepted, 0);
  assert.ok(first.tally.infra_error >= 1 && first.tally.infra_error <= 2, JSON.stringify(first.tally)); // no new entry after the fault
  assert.ok(oracleCalls >= 1);
  const stopped = entries.filter((e) => requestsFor(e) > 0);
  assert.equal(stopped.length, first.tally.infra_error);
  for (const e of stopped) {
    const h = hist(runDir, e.entry_id);
    assert.equal(h.status, 'infra_error');
    assert.deepEqual(h.attempts.map((a) => a.outcome), ['infra_error']);
  }
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  const judged = ledger.calls(runId).filter((c) => c.outcome !== null);
  ledger.close();
  assert.deepEqual(judged, [], 'a fault judges nothing');

  faulty = false;
  const paidBefore = new Map(stopped.map((e) => [e.entry_id, requestsFor(e)]));
  const second = await t.client.workflow.execute(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues, { concurrency: 2, pageSize: 50 })],
  });
  assert.equal(second.tally.accepted, 5);
  assert.equal(second.finalize?.released_queries, 5);
  for (const e of stopped) {
    assert.equal(requestsFor(e), paidBefore.get(e.entry_id), `${e.entry_id}: its stored answer was gated again, not re-requested`);
    const h = hist(runDir, e.entry_id);
    assert.deepEqual(h.attempts.map((a) => [a.attempt_no, a.outcome, a.reused]), [[1, 'accepted', true]]);
  }
  assertOneRequestPerAttempt(runDir, runId, entries);
});

test('an answer the ledger holds is used whatever happened to its workflow; a `started` row is reconciled to lost', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, providers, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `stored-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 3, 'stored');
  const input = benchmarkInput(runId, runDir, queues, { concurrency: 1, pageSize: 50 });
  if (input.generator.kind !== 'llm') throw new Error('llm generator expected');
  // Entry 1: the provider answered (ledger row ok) but no workflow ever judged it, as after a child that failed
  // or a history that was lost. Called directly, outside any workflow.
  const direct = await generateEntryDirect({ ...process.env, ...fake.env }, { runId, runDir, entry: entries[0], attemptNo: 1, settings: input.generator.settings, promptId: input.generator.promptId });
  assert.equal(direct.ok, true);
  assert.equal(requestsFor(entries[0]), 1);
  // Entry 2: a worker died while its request was in flight (the row stays `started`; no response was stored).
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  ledger.startCall({ run_id: runId, phase: 'entry', entry_id: entries[1].entry_id, attempt_no: 1, provider: 'openai', model: 'gpt-5.4', endpoint: 'responses', reasoning_effort: 'high', prompt_id: 'entry.v1', prompt_sha256: 'x', started_at: new Date().toISOString() });
  ledger.close();

  const result = await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [input] });
  assert.equal(result.tally.accepted, 3);
  assert.equal(requestsFor(entries[0]), 1, 'the stored answer was judged, not re-requested');
  assert.deepEqual(hist(runDir, entries[0].entry_id).attempts.map((a) => [a.attempt_no, a.outcome, a.reused]), [[1, 'accepted', true]]);
  assert.equal(requestsFor(entries[1]), 1, 'the lost call was made again once');
  const after = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    const rows = after.calls(runId).filter((c) => c.entry_id === entries[1].entry_id);
    assert.deepEqual(rows.map((c) => [c.attempt_no, c.try_no, c.status, c.outcome]), [[1, 1, 'lost', 'lost'], [1, 2, 'ok', 'accepted']]);
    assert.equal(after.calls(runId).filter((c) => c.status === 'started').length, 0);
  } finally {
    after.close();
  }
  assertOneRequestPerAttempt(runDir, runId, entries);
});

test('--max-attempts 1 and a provider that keeps failing: provider_error, and the next run retries it (not rejected)', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, providers, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `outage-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 2, 'outage');
  // Two 500s outlast a 2.5 s patience (tries at 0 s and 1 s; the next wait, 2 s, would pass it).
  fake.script(entries[1].function_name, ['500', '500']);
  const input = benchmarkInput(runId, runDir, queues, { concurrency: 2, pageSize: 50, maxAttempts: 1, providerPatienceMs: 2500 });
  const first = await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [input] });
  assert.equal(first.tally.accepted, 1);
  assert.equal(first.tally.provider_error, 1);
  assert.equal(first.tally.rejected, 0);
  assert.equal(hist(runDir, entries[1].entry_id).status, 'provider_error');
  const before = requestsFor(entries[1]);
  const second = await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [input] });
  assert.equal(second.tally.accepted, 2);
  assert.equal(requestsFor(entries[1]), before + 1, 'the rerun sent the request again, once');
  assert.deepEqual(hist(runDir, entries[1].entry_id).attempts.map((a) => [a.attempt_no, a.outcome]), [[1, 'accepted']]);
});

const PRICE = { input: 1.25, output: 10.0 }; // data/prices.json openai/gpt-5.4, USD per million tokens
/** What the provider billed, from its own log: usage × price of every answered request for these entries. */
function billed(entries: RegistryEntry[], since: number): number {
  const names = new Set(entries.map((e) => e.function_name));
  return fake.log
    .slice(since)
    .filter((l) => l.usage && l.subject && names.has(l.subject))
    .reduce((s, l) => s + (l.usage!.input_tokens * PRICE.input + l.usage!.output_tokens * PRICE.output) / 1e6, 0);
}

test('a 429 storm (Retry-After 1) with --max-attempts 1: retried inside the attempt within --provider-patience; every request a ledger row; audit = invoice', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, providers, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `storm-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 4, 'storm');
  const since = fake.log.length;
  fake.outage(2500, 429);
  const r = await t.client.workflow.execute(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues, { concurrency: 4, pageSize: 50, maxAttempts: 1, providerPatienceMs: 60_000 })],
  });
  assert.equal(r.tally.accepted, 4, JSON.stringify(r.tally));
  const seen = fake.log.slice(since);
  const refused = seen.filter((l) => l.status === 429).length;
  assert.ok(refused >= 4, `${refused} requests refused during the storm`);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    const calls = ledger.calls(runId);
    assert.equal(calls.filter((c) => c.status === 'error' && c.http_status === 429).length, refused, 'every refused request is a ledger row');
    assert.equal(calls.filter((c) => c.status === 'ok').length, seen.filter((l) => l.status === 200).length);
    assert.deepEqual([...new Set(calls.map((c) => c.attempt_no))], [1], 'the storm consumed no attempt');
    const audit = auditRun(calls);
    assert.equal(audit.totals.lost_calls, 0);
    assert.equal(Math.round(audit.totals.cost_usd * 1e8), Math.round(billed(entries, since) * 1e8));
  } finally {
    ledger.close();
  }
  assertOneRequestPerAttempt(runDir, runId, entries);
});

test('an outage longer than --provider-patience: provider_error (attempt kept); after recovery the next run accepts with one request each', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, providers, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `patience-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 2, 'patience');
  const input = benchmarkInput(runId, runDir, queues, { concurrency: 2, pageSize: 50, maxAttempts: 1, providerPatienceMs: 1500 });
  fake.outage(5000, 503);
  const first = await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [input] });
  assert.equal(first.tally.provider_error, 2);
  assert.equal(first.tally.rejected, 0);
  for (const e of entries) {
    const h = hist(runDir, e.entry_id);
    assert.equal(h.status, 'provider_error');
    assert.match(h.attempts[0].reasons[0], /HTTP 503.*still failing after 2 tries in 2 s: raise --provider-patience/);
    assert.equal(requestsFor(e), 2, 'tries at 0 s and 1 s; the next wait (2 s) would pass the patience');
  }
  await new Promise((r) => setTimeout(r, Math.max(0, fake.outageEndsAt - Date.now() + 200)));
  const second = await t.client.workflow.execute(buildBenchmark, { taskQueue: queues.default, workflowId: `${runId}/benchmark`, args: [input] });
  assert.equal(second.tally.accepted, 2);
  for (const e of entries) {
    assert.equal(requestsFor(e), 3);
    assert.deepEqual(hist(runDir, e.entry_id).attempts.map((a) => [a.attempt_no, a.outcome]), [[1, 'accepted']]);
  }
  assertOneRequestPerAttempt(runDir, runId, entries);
});

test('a budget cap with 3 calls in flight is never passed: each call reserves its worst case before it is sent', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, providers, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `cap-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 9, 'cap');
  fake.delayMs = 300; // the three calls overlap
  const small = { kind: 'llm' as const, settings: { provider: 'openai' as const, model: 'gpt-5.4', endpoint: 'responses', reasoning_effort: 'high', max_output_tokens: 1000 }, promptId: 'entry.v1' };
  const cap = 0.05;
  const since = fake.log.length;
  try {
    const r = await t.client.workflow.execute(buildBenchmark, {
      taskQueue: queues.default,
      workflowId: `${runId}/benchmark`,
      args: [benchmarkInput(runId, runDir, queues, { concurrency: 3, pageSize: 50, budget: { max_usd: cap }, generator: small })],
    });
    assert.equal(r.tally.budget_stopped, true);
    assert.ok(r.tally.accepted >= 2 && r.tally.accepted < 9, JSON.stringify(r.tally));
  } finally {
    fake.delayMs = 0;
  }
  const spent = billed(entries, since);
  assert.ok(spent <= cap, `provider billed $${spent} against a $${cap} cap`);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    const audit = auditRun(ledger.calls(runId));
    assert.equal(Math.round(audit.totals.cost_usd * 1e8), Math.round(spent * 1e8));
  } finally {
    ledger.close();
  }
});
