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
import { createLlmActivities } from '../../activities/generation/llmActivities.ts';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { ACTIVITY_PROVIDERS, type ActivityProvider } from '../../workers/registry.ts';
import type { EntryResult, RegistryEntry } from '../../core/generation/types.ts';

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
  ...ACTIVITY_PROVIDERS.filter((p) => p.name !== 'generation:exec'),
  { queue: 'exec', name: 'generation:exec', create: () => ({ activities: createExecActivities({ oracle: async () => switchable }) }) },
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
  const llm = createLlmActivities({ env: { ...process.env, ...fake.env } });
  const direct = await llm.generateEntryLlm({ runId, runDir, entry: entries[0], attemptNo: 1, settings: input.generator.settings, promptId: input.generator.promptId });
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
  fake.script(entries[1].function_name, Array(8).fill('500'));
  const input = benchmarkInput(runId, runDir, queues, { concurrency: 2, pageSize: 50, maxAttempts: 1 });
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
