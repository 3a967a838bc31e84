/**
 * The README's batch run, as a user runs it (child processes of bin/execretrieval.js against a real dev server and
 * the fake provider's Batch API): `generate benchmark --batch` SIGKILLed once round 1's batch is at the provider;
 * `audit` shows the batch in flight with its worst case; the same command again attaches to the workflow and
 * finishes; the audit equals the provider's invoice at batch prices and `audit --check-batches` agrees.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { writeRegistry } from './genSupport.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { auditRun } from '../../core/generation/audit.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';

let t: TestTemporal;
let fake: FakeLlmServer;
before(async () => {
  [t, fake] = await Promise.all([startTestTemporal(), startFakeLlmServer()]);
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

const BIN = join(PROJECT_ROOT, 'bin', 'execretrieval.js');
const env = () => ({ ...process.env, TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace, ...fake.env });

/** Runs the CLI to its end (asynchronously: the fake provider answering it runs in this process). */
function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: env(), maxBuffer: 16 << 20, timeout: 240_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('generate benchmark --batch from the CLI: SIGKILLed with round 1 at the provider, shown in flight by audit, the same command resumes it to the end; audit = invoice, --check-batches agrees', async () => {
  const runId = 'cli-batch';
  const runDir = join(t.tmp, runId);
  writeRegistry(runDir, 3, 'clibatch');
  const args = ['generate', 'benchmark', '--run', runDir, '--generator', 'openai', '--model', 'gpt-5.4', '--batch', '--queue-prefix', t.uniqueQueues().prefix];
  fake.batch.delayMs = 600_000;
  const mine = () => fake.batch.batches.filter((b) => b.metadata?.execretrieval_run === runId);

  const first = spawn(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
  first.stderr.resume();
  await until(() => mine().length === 1, 180_000, "round 1's batch at the provider");
  // Killed once the batch's id is recorded too: a kill between the provider's create and that record is another
  // window, with its own test (the next worker adopts the batch: test/temporal/batchGeneration.test.ts).
  const recordEnd = Date.now() + 60_000;
  while (!/entry round 1: batch_\d+/.test((await cli(['audit', '--run', runDir])).out)) {
    if (Date.now() > recordEnd) throw new Error("timed out waiting for round 1's batch id in the run's records");
  }
  const gone = new Promise((r) => first.once('exit', r));
  first.kill('SIGKILL');
  await gone;

  const during = await cli(['audit', '--run', runDir]);
  assert.equal(during.code, 0, during.out);
  assert.match(during.out, /provider batches: 1, 1 in flight \(3 requests, at most \$[0-9.]+ more\)\n  entry round 1: batch_\d+  submitted \(in_progress\)  3 requests  in flight: at most \$[0-9.]+/);

  mine()[0].ends_ms = Date.now(); // the provider finishes it while nothing of ours runs
  fake.batch.delayMs = 0;
  const resumed = await cli(args);
  assert.equal(resumed.code, 0, resumed.out);
  assert.match(resumed.out, /already running \(a batch may be at the provider\): attaching to it/);
  assert.match(resumed.out, /entries: 3 in 1 batch rounds; accepted 3, rejected 0/);
  assert.match(resumed.out, /released 3 queries/);
  assert.equal(mine().length, 1, 'one batch: nothing sent again');

  // The invoice: what the provider's log billed for the run's batch, at batch prices.
  const price = JSON.parse(readFileSync(join(PROJECT_ROOT, 'data', 'prices.json'), 'utf8')).batch.models['openai/gpt-5.4'];
  const billed = fake.log.filter((l) => l.batch_id === mine()[0].id && l.usage);
  assert.equal(billed.length, 3, 'one billed request per entry');
  const invoice = billed.reduce((s, l) => s + (l.usage!.input_tokens * price.input + l.usage!.output_tokens * price.output) / 1e6, 0);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  const audited = auditRun(ledger.calls(runId)).totals.cost_usd;
  ledger.close();
  assert.ok(Math.abs(audited - invoice) < 1e-12, `audit $${audited} vs invoice $${invoice}`);

  const check = await cli(['audit', '--run', runDir, '--check-batches']);
  assert.equal(check.code, 0, check.out);
  assert.ok(check.out.includes(`billed: $${invoice.toFixed(6)} over 3 answered calls`), check.out);
  assert.match(check.out, /provider files of 1 ingested batches: 3 answered requests, \$[0-9.]+ at batch prices; the ledger matches them request by request/);
  console.error(['--- during (audit):', during.out, '--- resumed:', resumed.out, '--- audit --check-batches:', check.out].join('\n'));
});
