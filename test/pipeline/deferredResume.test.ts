/**
 * A stage attempt that goes quiet with misses is suspended in its worker, and the next attempt naming those
 * misses (`after`) continues it from where it was: the stage's code runs once over all its rounds, so a round
 * costs only its new executions (activities/pipeline/deferredExec.ts). The "exec queue" here is a pool that
 * answers every suite with canned outcomes, through the real cache-writing oracle on the same cache file.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerStream, attemptWithDeferredExec, harvestStream, pendingHash, suspendedRuns, type PendingExec } from '../../activities/pipeline/deferredExec.ts';
import { execContentKey, execRunKey } from '../../activities/exec/cache.ts';
import { runnerVersion } from '../../activities/exec/pool.ts';
import { oracleOnPool } from '../../activities/exec/oracle.ts';
import type { Oracle } from '../../activities/exec/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'deferred-resume-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const suite = (n: number) => ({ kind: 'asserts' as const, tests: [`assert f() == ${n}`] });
const codeOf = (n: number) => `def f():\n    return ${n}\n`;

/** Runs the pending requests the way a batch on the exec queue does: through an oracle that writes the cache. */
async function runBatch(cachePath: string, pending: PendingExec[]): Promise<void> {
  const oracle = oracleOnPool({ lastLayers: {}, run: async (_c, _s, n) => ({ outcomes: new Array(n).fill('pass'), wall_ms: 7, cpu_ms: 3, layers: {} }), async close() {} }, { cachePath });
  await oracle.runMany(pending);
  await oracle.close();
}

/** Three rounds, each one execution that depends on the previous verdict (as mutant rounds do). */
function threeRounds(calls: { starts: number }) {
  return async (oracle: Oracle) => {
    calls.starts++;
    const verdicts: boolean[] = [];
    for (let r = 1; r <= 3; r++) verdicts.push((await oracle.run({ code: codeOf(r), suite: suite(r), timeout_s: 5 })).passed);
    return verdicts;
  };
}

test('attempts continue a suspended stage: its code starts once over three rounds, and each attempt asks only for the new round', async () => {
  const cachePath = join(dir, 'a.sqlite');
  const calls = { starts: 0 };
  const stage = threeRounds(calls);
  const opts = { layers: {}, cachePath, idleMs: 100 };
  const identity = JSON.stringify({ stage: 'test', run: 'a' });
  let previous: string | undefined;
  const asked: string[][] = [];
  for (let attempt = 1; attempt <= 4; attempt++) {
    const got = await attemptWithDeferredExec(stage, opts, { identity, after: previous });
    assert.equal(!!got.resumed, attempt > 1, `attempt ${attempt} resumed`);
    if (got.done) {
      assert.deepEqual(got.value, [true, true, true]);
      assert.equal(attempt, 4);
      break;
    }
    asked.push(got.pending.map((p) => p.code));
    await runBatch(cachePath, got.pending);
    previous = pendingHash(got.pending);
  }
  assert.deepEqual(asked, [[codeOf(1)], [codeOf(2)], [codeOf(3)]]);
  assert.equal(calls.starts, 1, 'the stage ran from the start once');
  assert.equal(suspendedRuns(), 0, 'a finished stage is not kept');
});

test('an attempt that names no suspended run (another worker, another stage) runs the stage from the start, with the same result', async () => {
  const cachePath = join(dir, 'b.sqlite');
  const calls = { starts: 0 };
  const stage = threeRounds(calls);
  const opts = { layers: {}, cachePath, idleMs: 100 };
  const first = await attemptWithDeferredExec(stage, opts, { identity: 'b' });
  assert.equal(first.done, false);
  if (first.done) return;
  await runBatch(cachePath, first.pending);
  // Same misses, other identity: nothing to continue here.
  const other = await attemptWithDeferredExec(stage, opts, { identity: 'b-elsewhere', after: pendingHash(first.pending) });
  assert.equal(other.resumed, undefined);
  assert.equal(other.done, false);
  if (other.done) return;
  assert.deepEqual(other.pending.map((p) => p.code), [codeOf(2)], 'round 1 came from the cache');
  assert.equal(calls.starts, 2);
  // Without resume options the attempt is stopped, not kept.
  const before = suspendedRuns();
  const plain = await attemptWithDeferredExec(stage, opts);
  assert.equal(plain.done, false);
  assert.equal(suspendedRuns(), before);
});

test('a continued attempt whose misses the batches did not cache (workers on different caches) hands back the same misses', async () => {
  const cachePath = join(dir, 'c.sqlite');
  const stage = threeRounds({ starts: 0 });
  const opts = { layers: {}, cachePath, idleMs: 100 };
  const first = await attemptWithDeferredExec(stage, opts, { identity: 'c' });
  if (first.done) throw new Error('expected misses');
  // The batch ran against another cache file: this one never gets the verdict.
  await runBatch(join(dir, 'elsewhere.sqlite'), first.pending);
  const again = await attemptWithDeferredExec(stage, opts, { identity: 'c', after: pendingHash(first.pending) });
  assert.equal(again.resumed, true);
  if (again.done) throw new Error('expected misses');
  // The workflow sees the same hash again and stops with its one-line InfraFault (runPipeline.ts).
  assert.equal(pendingHash(again.pending), pendingHash(first.pending));
});

/** The execution-cache keys of requests, as the exchange names the verdicts it stored. */
const runKeys = (pending: PendingExec[]) => pending.map((p) => execRunKey(execContentKey(runnerVersion(), p.code, p.suite), p.timeout_s));

test('pipelined: stored verdicts answer the suspended stage at once, and harvests hand out each later round once, with no attempt in between', async () => {
  const cachePath = join(dir, 'd.sqlite');
  const calls = { starts: 0 };
  const opts = { layers: {}, cachePath, idleMs: 100 };
  const first = await attemptWithDeferredExec(threeRounds(calls), opts, { identity: 'd' });
  if (first.done) throw new Error('expected misses');
  assert.ok(first.stream, 'a suspended attempt has a stream token');
  // Nothing new before a verdict is in: the one miss was handed out with the attempt.
  assert.deepEqual(await harvestStream(first.stream!, { quietMs: 20 }), { pending: [] });
  for (const r of [1, 2]) {
    const round: PendingExec[] = r === 1 ? first.pending : [{ code: codeOf(r), suite: suite(r), timeout_s: 5 }];
    await runBatch(cachePath, round);
    assert.equal(await answerStream(first.stream!, runKeys(round)), 1, `round ${r}'s verdict answered its call`);
    const next = await harvestStream(first.stream!, { quietMs: 20 });
    assert.deepEqual(next, { pending: [{ code: codeOf(r + 1), suite: suite(r + 1), timeout_s: 5 }] });
    assert.deepEqual(await harvestStream(first.stream!, { quietMs: 20 }), { pending: [] }, 'handed out once');
  }
  await runBatch(cachePath, [{ code: codeOf(3), suite: suite(3), timeout_s: 5 }]);
  await answerStream(first.stream!, runKeys([{ code: codeOf(3), suite: suite(3), timeout_s: 5 }]));
  assert.deepEqual(await harvestStream(first.stream!, { quietMs: 20 }), { settled: true });
  // The next attempt (the workflow's, once the stream is over) returns the stage's value from the same run.
  const last = await attemptWithDeferredExec(threeRounds(calls), opts, { identity: 'd', after: pendingHash(first.pending) });
  assert.equal(last.done, true);
  assert.equal(last.resumed, true);
  if (last.done) assert.deepEqual(last.value, [true, true, true]);
  assert.equal(calls.starts, 1);
  assert.deepEqual(await harvestStream(first.stream!), { lost: true }, 'a finished stage is no stream any more');
});

test('pipelined: verdicts that reach another cache answer nothing, and the next attempt hands back the same misses (the livelock guard sees them)', async () => {
  const cachePath = join(dir, 'e.sqlite');
  const opts = { layers: {}, cachePath, idleMs: 100 };
  const first = await attemptWithDeferredExec(threeRounds({ starts: 0 }), opts, { identity: 'e' });
  if (first.done) throw new Error('expected misses');
  await runBatch(join(dir, 'elsewhere-e.sqlite'), first.pending);
  assert.equal(await answerStream(first.stream!, runKeys(first.pending)), 0);
  assert.deepEqual(await harvestStream(first.stream!, { quietMs: 20 }), { pending: [] });
  const again = await attemptWithDeferredExec(threeRounds({ starts: 0 }), opts, { identity: 'e', after: pendingHash(first.pending) });
  if (again.done) throw new Error('expected misses');
  assert.equal(pendingHash(again.pending), pendingHash(first.pending));
  assert.deepEqual(await answerStream('0'.repeat(32), runKeys(first.pending)), 0, 'an unknown token answers nothing');
});
