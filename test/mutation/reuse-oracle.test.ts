// The gate-side oracle wrapper: only verification runs that finished without a timeout are reused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noteVerifiedRun, reuseVerifiedRuns } from '../../activities/mutation/reuseOracle.ts';
import type { Oracle } from '../../activities/exec/types.ts';
import type { ExecRequest, ExecResult } from '../../schemas/exec.ts';

// A recording stand-in for the oracle: this test is about which timeout the wrapper asks for, not execution.
function recorder(): Oracle & { seen: ExecRequest[] } {
  const seen: ExecRequest[] = [];
  const res: ExecResult = { outcomes: ['pass'], wall_ms: 1, passed: true, cached: false };
  return { seen, run: async (r) => (seen.push(r), res), runMany: async (rs) => rs.map((r) => (seen.push(r), res)), close: async () => {} };
}

test('a completed verification run is requested again under its own timeout; a timed-out one is not', async () => {
  const suite = { kind: 'asserts' as const, tests: ['assert f() == 1'] };
  const done = { code: 'def f():\n    return 2\n', suite, timeout_s: 1 };
  const slow = { code: 'def f():\n    while True: pass\n', suite, timeout_s: 1 };
  const runs = new Map<string, number>();
  noteVerifiedRun(runs, done, { outcomes: ['FAIL'], wall_ms: 5, passed: false, cached: false });
  noteVerifiedRun(runs, slow, { outcomes: ['TIMEOUT'], wall_ms: 1000, passed: false, cached: false });
  const inner = recorder();
  const wrapped = reuseVerifiedRuns(inner, runs);
  await wrapped.runMany([{ code: done.code, suite }, { code: slow.code, suite }, { code: 'other', suite }]);
  await wrapped.run({ code: done.code, suite, timeout_s: 7 });
  assert.deepEqual(inner.seen.map((r) => r.timeout_s), [1, undefined, undefined, 7]);
  // The same code under another suite is a different run.
  await wrapped.run({ code: done.code, suite: { kind: 'asserts', tests: ['assert f() == 2'] } });
  assert.equal(inner.seen[4].timeout_s, undefined);
});
