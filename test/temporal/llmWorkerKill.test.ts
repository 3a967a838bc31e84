/**
 * The ledger across machines: generation with the llm worker on "another machine" (a mount namespace of its own, a
 * private tmpfs over the run folder, the checkout's runs/ and .execretrieval/: it cannot read or write the run's
 * ledger), the coordinator (default and exec queues) in this process. The worker is SIGKILLed while the provider
 * holds its requests; a second namespaced worker finishes the run. Against an uninterrupted run of the same
 * registry: the same release files and attempt histories; every request the provider saw has exactly one ledger
 * row (written by the coordinator before the request was sent), those lost with the worker are `lost` with their
 * bounds, and the audit brackets the provider's own billed log.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { benchmarkInput, writeRegistry } from './genSupport.ts';
import { spawnNamespacedWorker } from './namespacedWorker.ts';
import { waitFor } from './pipelineSupport.ts';
import { buildBenchmark } from '../../workflows/buildBenchmark.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { auditRun } from '../../core/generation/audit.ts';
import type { EntryResult } from '../../core/generation/types.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';

let t: TestTemporal;
let fake: FakeLlmServer;
let tmp: string;
before(async () => {
  [t, fake] = await Promise.all([startTestTemporal(), startFakeLlmServer()]);
  tmp = mkdtempSync(join(tmpdir(), 'llm-ns-'));
});
after(async () => {
  await t?.stop();
  await fake?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const PRICE = { input: 1.25, output: 10.0 }; // data/prices.json openai/gpt-5.4, USD per million tokens
const ENTRIES = 6;
const read = (p: string) => readFileSync(p, 'utf8');
/** queries.jsonl without each entry's generation time (workflow time of the run that made it). */
const queriesOf = (runDir: string) => read(join(runDir, 'queries.jsonl')).trim().split('\n').map((l) => {
  const q = JSON.parse(l);
  delete q.metadata.generated_at;
  return q;
});
const histories = (runDir: string, ids: string[]) => ids.map((id) => {
  const h = JSON.parse(read(join(runDir, 'entries', `${id}.json`))) as EntryResult;
  return [h.status, h.attempts.map((a) => [a.attempt_no, a.outcome, a.usage])];
});

test('an llm worker with no run folder, SIGKILLed mid-request: another finishes; same outputs as an uninterrupted run, one ledger row per request sent, the audit brackets the provider log', async () => {
  const env = { ...process.env, ...fake.env };
  // The reference: every queue in this process, nothing killed.
  const refQueues = t.uniqueQueues();
  await t.startWorkers({ queues: refQueues, deps: { env } });
  const refDir = join(tmp, 'ref');
  const entries = writeRegistry(refDir, ENTRIES, 'nsllm');
  const ids = entries.map((e) => e.entry_id);
  const ref = await t.client.workflow.execute(buildBenchmark, {
    taskQueue: refQueues.default, workflowId: `ref-${refQueues.prefix}/benchmark`,
    args: [benchmarkInput(`ref-${refQueues.prefix}`, refDir, refQueues, { concurrency: 3, pageSize: 50 })],
  });
  assert.equal(ref.tally.accepted, ENTRIES);

  // The coordinator here serves default and exec; the llm queue only in namespaces that cannot see `tmp`.
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, keys: ['default', 'exec'], deps: { env } });
  const runId = `ns-${queues.prefix}`;
  const runDir = join(tmp, 'ns');
  writeRegistry(runDir, ENTRIES, 'nsllm'); // the same names: the fake answers each the same way
  const since = fake.log.length;
  const workers: ChildProcess[] = [];
  fake.delayMs = 1500; // the provider holds each request long enough to kill its worker meanwhile
  let result;
  let lostAtKill: number;
  try {
    workers.push(await spawnNamespacedWorker(t, { prefix: queues.prefix, queues: 'llm', hide: [tmp], env: fake.env }));
    const handle = await t.client.workflow.start(buildBenchmark, {
      taskQueue: queues.default, workflowId: `${runId}/benchmark`,
      args: [benchmarkInput(runId, runDir, queues, { concurrency: 3, pageSize: 50 })],
    });
    // Only the namespaced worker serves the llm queue: a request the provider holds is its request.
    await waitFor('a request of the namespaced llm worker held by the provider', () => fake.inflight > 0, 120_000);
    workers[0].kill('SIGKILL');
    lostAtKill = fake.inflight;
    await new Promise((r) => workers[0].once('exit', r));
    workers.push(await spawnNamespacedWorker(t, { prefix: queues.prefix, queues: 'llm', hide: [tmp], env: fake.env }));
    result = await handle.result();
    await waitFor('the held requests answered (to the dead worker)', () => fake.inflight === 0, 10_000);
  } finally {
    fake.delayMs = 0;
    for (const w of workers) w.kill('SIGKILL');
  }

  // The outputs of the uninterrupted run.
  assert.deepEqual([result.tally.accepted, result.tally.rejected, result.tally.provider_error], [ref.tally.accepted, ref.tally.rejected, ref.tally.provider_error]);
  assert.equal(read(join(runDir, 'corpus.jsonl')), read(join(refDir, 'corpus.jsonl')));
  assert.deepEqual(queriesOf(runDir), queriesOf(refDir));
  assert.deepEqual(histories(runDir, ids), histories(refDir, ids));

  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  let calls;
  try {
    calls = ledger.calls(runId);
    assert.deepEqual(ledger.duplicateAcceptances(runId), []);
  } finally {
    ledger.close();
  }
  const seen = fake.log.slice(since);
  const lost = calls.filter((c) => c.status === 'lost');
  // One row per request sent: the coordinator wrote each before its request could leave; no request without one.
  assert.equal(calls.length, seen.length, `${calls.length} ledger rows for ${seen.length} requests the provider saw`);
  assert.equal(calls.filter((c) => c.status === 'ok').length, seen.length - lost.length);
  assert.equal(calls.filter((c) => c.status === 'started').length, 0, 'every reservation settled');
  // At least those the provider held at the kill (one sent in the instant before it may have been on its way).
  assert.ok(lostAtKill! >= 1 && lost.length >= lostAtKill!, `${lost.length} lost rows, ${lostAtKill!} requests held at the kill`);
  for (const c of lost) assert.ok((c.input_tokens_est ?? 0) > 0 && (c.cost_usd_max ?? 0) > 0, 'a lost row keeps its bounds');
  // Each lost try was made again under the same attempt, with a row of its own.
  for (const c of lost) assert.ok(calls.some((o) => o.entry_id === c.entry_id && o.attempt_no === c.attempt_no && o.try_no > c.try_no && o.status === 'ok'), `${c.entry_id} retried after its lost try`);

  // The provider billed the dead worker's requests too: audit ≤ invoice ≤ audit + the lost rows' bounds.
  const invoice = seen.reduce((s, l) => s + (l.usage!.input_tokens * PRICE.input + l.usage!.output_tokens * PRICE.output) / 1e6, 0);
  const audit = auditRun(calls);
  assert.equal(audit.totals.lost_calls, lost.length);
  assert.ok(audit.totals.cost_usd < invoice, `audit $${audit.totals.cost_usd} leaves out the lost calls' bills (invoice $${invoice})`);
  assert.ok(invoice <= audit.totals.cost_usd + audit.totals.lost_cost_usd_max + 1e-9, `invoice $${invoice} within audit $${audit.totals.cost_usd} + lost bound $${audit.totals.lost_cost_usd_max}`);
  assert.equal(existsSync(join(PROJECT_ROOT, 'runs', basename(runDir))), false, 'no worker wrote into this checkout');
  console.error(`llm worker killed with ${lostAtKill!} requests held: ${seen.length} requests, ${calls.length} rows (${lost.length} lost); audit $${audit.totals.cost_usd.toFixed(6)} <= invoice $${invoice.toFixed(6)} <= $${(audit.totals.cost_usd + audit.totals.lost_cost_usd_max).toFixed(6)}`);
});
