/**
 * Exec batches need no shared folder (issue 23): the coordinator cuts a round's requests into batches by count
 * and bytes, reads each batch as a byte range of its pending file, the batch travels in the exec activity's input,
 * and its verdicts come back as the result, which the coordinator stores in the authoritative cache. Here the exec
 * worker has a cache file of its own (another machine) and never sees the run folder.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPipelineCoordinator, createPipelineExecActivities } from '../../activities/pipeline/pipelineActivities.ts';
import { BATCH_MAX_BYTES, readPendingFile, readPendingSlice, writePending } from '../../activities/pipeline/stageFiles.ts';
import { oracleOnPool } from '../../activities/exec/oracle.ts';
import { ExecCache } from '../../activities/exec/cache.ts';
import type { PendingExec } from '../../activities/pipeline/deferredExec.ts';

const dir = mkdtempSync(join(tmpdir(), 'no-shared-folder-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const request = (n: number, pad = 0): PendingExec => ({ code: `def f():\n    return ${n}\n${'#'.repeat(pad)}\n`, suite: { kind: 'asserts', tests: [`assert f() == ${n}`] }, timeout_s: 0.1 });

test('a round is cut into batches by count and by bytes, and each batch reads only its own byte range', () => {
  const small = Array.from({ length: 50 }, (_, i) => request(i));
  const p = writePending(join(dir, 'run-a'), 'build', small, 24);
  assert.deepEqual(p.batches.map((b) => b[2]), [24, 24, 2]);
  assert.equal(p.batches[0][0], 0);
  assert.equal(p.batches.at(-1)![1], statSync(p.file).size, 'the batches cover the file');
  for (let i = 1; i < p.batches.length; i++) assert.equal(p.batches[i][0], p.batches[i - 1][1], 'contiguous');
  assert.deepEqual(p.batches.flatMap(([s, e]) => readPendingSlice(p.file, s, e)), small);
  assert.deepEqual(readPendingFile(p.file), small);

  // 300 KB requests: one per batch under the 512 KB bound, whatever the count allows.
  const big = Array.from({ length: 3 }, (_, i) => request(i, 300 * 1024));
  const q = writePending(join(dir, 'run-a'), 'score', big, 24);
  assert.deepEqual(q.batches.map((b) => b[2]), [1, 1, 1]);
  for (const [s, e] of q.batches) assert.ok(e - s < BATCH_MAX_BYTES);
  assert.throws(() => readPendingSlice(q.file, 1, q.batches[0][1]), /not JSON|line's end/);
});

test('a batch on a worker with its own cache returns verdicts; the coordinator stores them, paid once, even when the store is retried', async () => {
  const runDir = join(dir, 'run-b');
  const coordinatorCache = join(dir, 'coordinator.sqlite');
  const workerCache = join(dir, 'worker.sqlite');
  const pending = Array.from({ length: 5 }, (_, i) => request(i));
  const p = writePending(runDir, 'build', pending, 2);

  const executed: string[] = [];
  const workerOracle = oracleOnPool(
    { lastLayers: {}, run: async (code, _s, n) => (executed.push(code), { outcomes: new Array(n).fill(code.includes('return 3') ? 'FAIL: AssertionError' : 'pass'), wall_ms: 2, cpu_ms: 1, layers: {} }), async close() {} },
    { cachePath: workerCache },
  );
  const worker = createPipelineExecActivities({ oracle: async () => workerOracle });
  const coordinator = createPipelineCoordinator({ cachePath: coordinatorCache });
  try {
    // One lane, as the workflow runs it: read a batch, execute it elsewhere, store its verdicts with the next read.
    let verdicts: Awaited<ReturnType<typeof worker.pipelineExecuteBatch>>['verdicts'] = [];
    for (const [start, end] of p.batches) {
      const { requests } = await coordinator.activities.pipelineExchange({ runDir, store: verdicts, read: { file: p.file, start, end } });
      verdicts = (await worker.pipelineExecuteBatch({ paidBy: runDir, requests })).verdicts;
    }
    await coordinator.activities.pipelineExchange({ runDir, store: verdicts });
    // The last store again (an activity retried after its worker died before answering): nothing paid twice.
    await coordinator.activities.pipelineExchange({ runDir, store: verdicts });
  } finally {
    coordinator.close();
    await workerOracle.close();
  }
  assert.equal(executed.length, 5);

  const c = new ExecCache(coordinatorCache);
  try {
    assert.equal(c.count(), 5, 'every verdict reached the authoritative cache');
    const paid = c.payments(runDir);
    assert.equal(paid.length, 5);
    assert.equal(new Set(paid.map((x) => x.key)).size, 5, 'each execution paid once');
  } finally {
    c.close();
  }
  // The stage's next attempt reads the coordinator's cache: the FAIL is there as the worker saw it.
  const reader = oracleOnPool({ lastLayers: {}, run: () => Promise.reject(new Error('a miss: the verdict did not travel')), async close() {} }, { cachePath: coordinatorCache });
  try {
    const got = await reader.runMany(pending);
    assert.deepEqual(got.map((r) => [r.cached, r.passed]), pending.map((_, i) => [true, i !== 3]));
  } finally {
    await reader.close();
  }
  assert.ok(!readFileSync(p.file, 'utf8').includes('"outcomes"'), 'the pending file holds requests only');
});

test('batches in flight is a setting of how the run is carried out, not of what it computes: the same workflow id', async () => {
  const { pipelineWorkflowId } = await import('../../cli/pipelineRun.ts');
  const base = { runId: 'x', runDir: '/r/x', source: 'curated', seed: 0, configs: null };
  assert.equal(pipelineWorkflowId({ ...base, batchesInFlight: 4 }), pipelineWorkflowId(base));
  assert.equal(pipelineWorkflowId({ ...base, coordinatorQueue: 'q', historyBound: { events: 1, bytes: 1 } }), pipelineWorkflowId(base));
  assert.equal(pipelineWorkflowId({ ...base, batch: true }), pipelineWorkflowId(base)); // same vectors at batch prices: attach, never run twice
  assert.notEqual(pipelineWorkflowId({ ...base, seed: 1 }), pipelineWorkflowId(base));
});
