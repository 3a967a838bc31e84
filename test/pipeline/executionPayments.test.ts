/**
 * The exec cache's payments are how a run proves it paid for no execution twice and for none it does not show, so
 * each execution a batch runs is recorded with its verdict, in the same transaction, as it is stored: a batch that
 * never finishes (a process that ends mid-batch) has recorded exactly the ones that did.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPipelineExecActivities } from '../../activities/pipeline/pipelineActivities.ts';
import { oracleOnPool } from '../../activities/exec/oracle.ts';
import { ExecCache } from '../../activities/exec/cache.ts';
import type { PendingExec } from '../../activities/pipeline/deferredExec.ts';

const dir = mkdtempSync(join(tmpdir(), 'execution-payments-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const payments = (cachePath: string, runDir: string) => {
  const cache = new ExecCache(cachePath);
  try {
    return cache.payments(resolve(runDir));
  } finally {
    cache.close();
  }
};

test('a batch records each execution with its verdict, before the rest of the batch has finished', async () => {
  const runDir = join(dir, 'run');
  const cachePath = join(dir, 'cache.sqlite');
  const pending: PendingExec[] = [1, 2, 3].map((n) => ({ code: `def f():\n    return ${n}\n`, suite: { kind: 'asserts', tests: [`assert f() == ${n}`] }, timeout_s: 5 }));
  // The third suite never finishes (a process that ends mid-batch); the first two do.
  const oracle = oracleOnPool(
    {
      lastLayers: {},
      run: (code, _s, n) => (code.includes('return 3') ? new Promise(() => {}) : Promise.resolve({ outcomes: new Array(n).fill('pass'), wall_ms: 1, cpu_ms: 1, layers: {} })),
      async close() {},
    },
    { cachePath },
  );
  const acts = createPipelineExecActivities({ oracle: async () => oracle });
  let finished = false;
  void acts.pipelineExecuteBatch({ paidBy: runDir, requests: pending }).then(() => (finished = true));
  for (let i = 0; i < 200 && payments(cachePath, runDir).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(finished, false, 'the batch is still waiting for its third execution');
  const two = payments(cachePath, runDir);
  assert.equal(two.length, 2, 'the two executions whose verdicts are stored are paid for');
  assert.ok(two.every((p) => p.pid === process.pid));

  // A second batch over the same requests finds the two in the cache and runs (and pays for) only the third.
  const again = createPipelineExecActivities({
    oracle: async () => oracleOnPool({ lastLayers: {}, run: async (_c, _s, n) => ({ outcomes: new Array(n).fill('pass'), wall_ms: 1, cpu_ms: 1, layers: {} }), async close() {} }, { cachePath }),
  });
  const got = await again.pipelineExecuteBatch({ paidBy: runDir, requests: pending });
  assert.deepEqual([got.run, got.cached, got.verdicts.map((v) => v.ran)], [1, 2, [false, false, true]]);
  const keys = payments(cachePath, runDir).map((p) => p.key);
  assert.equal(keys.length, 3);
  assert.equal(new Set(keys).size, 3, 'no execution paid for twice');
  assert.deepEqual(payments(cachePath, join(dir, 'another-run')), [], 'payments are per payer');
});
