/**
 * pipeline/executions.log is how a run proves it paid for no execution twice, so it must hold every execution
 * a batch ran even when the process ends mid-batch (the CLI exits 5 when its dev server dies). Each execution is
 * logged as its verdict is cached; a batch that never finishes has still logged the ones that did.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPipelineExecActivities } from '../../activities/pipeline/pipelineActivities.ts';
import { executionsLogPath, writePending } from '../../activities/pipeline/stageFiles.ts';
import { oracleOnPool } from '../../activities/exec/oracle.ts';
import type { PendingExec } from '../../activities/pipeline/deferredExec.ts';

const dir = mkdtempSync(join(tmpdir(), 'executions-log-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a batch logs each execution when its verdict is cached, before the rest of the batch has finished', async () => {
  const runDir = join(dir, 'run');
  const pending: PendingExec[] = [1, 2, 3].map((n) => ({ code: `def f():\n    return ${n}\n`, suite: { kind: 'asserts', tests: [`assert f() == ${n}`] }, timeout_s: 5 }));
  const { file } = writePending(runDir, 'build', pending);
  // The third suite never finishes (a process that ends mid-batch); the first two do.
  const oracle = oracleOnPool(
    {
      lastLayers: {},
      run: (code, _s, n) => (code.includes('return 3') ? new Promise(() => {}) : Promise.resolve({ outcomes: new Array(n).fill('pass'), wall_ms: 1, cpu_ms: 1, layers: {} })),
      async close() {},
    },
    { cachePath: join(dir, 'cache.sqlite') },
  );
  const acts = createPipelineExecActivities({ oracle: async () => oracle });
  let finished = false;
  void acts.pipelineExecuteBatch({ runDir, file, start: 0, end: 3 }).then(() => (finished = true));
  const log = executionsLogPath(runDir);
  for (let i = 0; i < 200 && !(existsSync(log) && readFileSync(log, 'utf8').split('\n').filter(Boolean).length === 2); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(finished, false, 'the batch is still waiting for its third execution');
  assert.equal(readFileSync(log, 'utf8').split('\n').filter(Boolean).length, 2, 'the two executions whose verdicts are cached are logged');

  // A second batch over the same requests finds the two in the cache and runs (and logs) only the third.
  const again = createPipelineExecActivities({
    oracle: async () => oracleOnPool({ lastLayers: {}, run: async (_c, _s, n) => ({ outcomes: new Array(n).fill('pass'), wall_ms: 1, cpu_ms: 1, layers: {} }), async close() {} }, { cachePath: join(dir, 'cache.sqlite') }),
  });
  assert.deepEqual(await again.pipelineExecuteBatch({ runDir, file, start: 0, end: 3 }), { run: 1, cached: 2 });
  const keys = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
  assert.equal(keys.length, 3);
  assert.equal(new Set(keys).size, 3, 'no execution logged twice');
});
