/**
 * A worker's opt-in Prometheus endpoint (--metrics-address): scraped before and during a small run (an embed
 * sweep whose workflows and sends this worker serves, against the fake provider), it answers with the SDK's series for this worker's
 * queues, and the counters of completed workflows and activities grow with the run. An address that cannot be
 * bound is one line and exit 5, never a worker without the metrics it was asked for.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestTemporal, waitForLine, type TestTemporal } from '../support/temporal.ts';
import { freePort } from '../../infra/temporal/devServer.ts';
import { writeTinyBenchmark } from '../embeddings/sweep-fixture.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { FAKE_DIMS, freshState, HOSTED } from './pipelineSupport.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';

let t: TestTemporal;
let tmp: string;
let bundle: string;
let state: string;
let fake: FakeEmbeddingServer;
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'worker-metrics-'));
  state = freshState(join(tmp, 'state'));
  [t, fake] = await Promise.all([startTestTemporal(), startFakeEmbeddingServer(FAKE_DIMS)]);
  bundle = join(tmp, 'workflow-bundle.js');
  writeFileSync(bundle, (await t.bundle()).code);
});
after(async () => {
  await fake?.close();
  await t?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace, EXECRETRIEVAL_STATE_DIR: state };
  delete e.EXECRETRIEVAL_METRICS_ADDRESS;
  delete e.EXECRETRIEVAL_EMBED_CACHE;
  return e;
};
const workerArgs = (metrics: string) => ['--import', 'tsx', join(PROJECT_ROOT, 'workers', 'all.ts'), '--queues', 'default,embed', '--workflow-bundle', bundle, '--metrics-address', metrics];

/** Sum of a series' samples whose labels contain every `labels` pair (Prometheus text format). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

test('--metrics-address: the SDK\'s series for this worker\'s queues, and completions that grow with a run', async () => {
  const metrics = `127.0.0.1:${await freePort()}`;
  // The worker sends the texts (the fake provider's address is its own); the CLI coordinates (--no-worker).
  const worker = spawn(process.execPath, workerArgs(metrics), { cwd: PROJECT_ROOT, env: { ...env(), EXECRETRIEVAL_EMBED_BASE_URL: fake.baseUrls.openai }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const ready = await waitForLine(worker, /worker ready/, 120_000);
    assert.match(ready, new RegExp(`metrics at http://${metrics.replace(/\./g, '\\.')}/metrics`));
    const scrape = async () => {
      const r = await fetch(`http://${metrics}/metrics`);
      assert.equal(r.status, 200);
      return r.text();
    };
    const idle = await scrape();
    // Slots and pollers per queue are there before any work: what an operator watches for capacity.
    for (const queue of ['execretrieval-default', 'execretrieval-embed']) {
      assert.ok(idle.includes(`task_queue="${queue}"`), `series for ${queue}`);
    }
    assert.match(idle, /^temporal_worker_task_slots_available\{/m);
    assert.match(idle, /^temporal_num_pollers\{/m);
    assert.equal(sample(idle, 'temporal_workflow_completed'), 0);

    const runDir = join(tmp, 'runs', 'metrics');
    writeTinyBenchmark(runDir, 4);
    const cli = await new Promise<{ code: number | null; stderr: string }>((res) => {
      const c = execFile(process.execPath, [join(PROJECT_ROOT, 'bin', 'execretrieval.js'), 'embed', '--run', runDir, '--configs', HOSTED, '--no-worker'], { cwd: PROJECT_ROOT, env: { ...env(), EXECRETRIEVAL_EMBED_BASE_URL: '' }, timeout: 240_000 }, (_e, _o, stderr) => res({ code: c.exitCode, stderr }));
    });
    assert.equal(cli.code, 0, cli.stderr);
    const busy = await scrape();
    assert.ok(sample(busy, 'temporal_workflow_completed', { task_queue: 'execretrieval-default' }) >= 1, 'the sweep\'s workflows completed on this worker');
    assert.ok(sample(busy, 'temporal_activity_execution_latency_count', { task_queue: 'execretrieval-embed' }) >= 1, 'the sends were timed on the embed queue');
    assert.ok(sample(busy, 'temporal_activity_schedule_to_start_latency_count', { task_queue: 'execretrieval-embed' }) >= 1, 'and their wait in the queue');
    assert.ok(sample(busy, 'temporal_workflow_task_schedule_to_start_latency_count') >= 1, 'queue wait measured');
  } finally {
    worker.kill('SIGKILL');
  }
});

test('--metrics-address that cannot be bound: one line, exit 5', async () => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
  const address = `127.0.0.1:${(taken.address() as AddressInfo).port}`;
  try {
    const r = await new Promise<{ code: number | null; stderr: string }>((res) => {
      const c = execFile(process.execPath, workerArgs(address), { cwd: PROJECT_ROOT, env: env(), timeout: 120_000 }, (_e, _o, stderr) => res({ code: c.exitCode, stderr }));
    });
    assert.equal(r.code, 5, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^worker: metrics address ${address.replace(/\./g, '\\.')}: `));
  } finally {
    await new Promise((r) => taken.close(r));
  }
});
