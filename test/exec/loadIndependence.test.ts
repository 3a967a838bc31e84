// Verdicts near a time limit must not follow the machine's load (issue 18): the sandbox charges a suite for the
// time it computes or blocks, never for the time it waits for a CPU, and mutants' limits derive from CPU time.
// The fault itself: CPU burners (6 per core) that starve the suites of CPU while they run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';
import { importMbpp } from '../../activities/importers/mbpp.ts';
import { resolveSource } from '../../activities/benchmark/sources.ts';
import { mutateAndVerify, type MutationJob } from '../../activities/mutation/verify.ts';
import type { TestSuite } from '../../schemas/exec.ts';

let oracle: Oracle;
before(async () => {
  oracle = await openOracle({ cachePath: null, concurrency: 2 });
});
after(async () => {
  await oracle.close();
});

/**
 * Runs `fn` while 6 busy-looping processes per core compete for every CPU; stops them (by pid) after. Each burner
 * is its own session (`detached`): with the kernel's autogroup scheduling (sched_autogroup_enabled=1 here) a
 * session shares one CPU slot, and the sandbox child runs in a session of its own (setsid), so burners left in
 * the test's session would be one competitor, not twelve, and on a quiet machine would barely slow it.
 */
async function underBurners<T>(fn: () => Promise<T>): Promise<T> {
  const burners: ChildProcess[] = Array.from({ length: 6 * availableParallelism() }, () =>
    spawn(pythonExecutable(), ['-I', '-c', 'while True: pass'], { stdio: 'ignore', detached: true }));
  try {
    await new Promise((r) => setTimeout(r, 300)); // let them start spinning
    return await fn();
  } finally {
    for (const b of burners) b.kill('SIGKILL');
  }
}

const suite: TestSuite = { kind: 'asserts', tests: ['assert f() >= 0'] };
const work = (n: number) => `def f():\n    s = 0\n    for i in range(${n}):\n        s += i\n    return s\n`;

test('a suite that needs half its limit in CPU passes on a starved machine, where its wall time exceeds the limit', async () => {
  const code = work(2_000_000);
  const quiet = await oracle.run({ code, suite, timeout_s: 5 });
  assert.deepEqual(quiet.outcomes, ['pass']);
  assert.ok(quiet.cpu_ms! > 20, `the work is measurable (${quiet.cpu_ms} ms of CPU)`);
  // About twice the CPU it needs (CPU time itself grew at most 1.42x under burners, on all 974 MBPP canonicals).
  const limit = Math.ceil((2 * quiet.cpu_ms!) / 100) / 10;
  const loaded = await underBurners(() => oracle.run({ code, suite, timeout_s: limit }));
  assert.deepEqual(loaded.outcomes, ['pass'], `cpu ${loaded.cpu_ms} ms, wall ${loaded.wall_ms} ms, limit ${limit} s`);
  // The fault was real: by wall time (the old rule) this suite would have been a TIMEOUT.
  assert.ok(loaded.wall_ms > limit * 1000, `burners stretched the wall time past the limit (${loaded.wall_ms} ms vs ${limit} s)`);
});

test('a loop that never ends is a TIMEOUT once it has used the limit in CPU, loaded or not; a sleeper once the limit has passed', async () => {
  const forever = 'def f():\n    while True:\n        pass\n';
  const sleeper = 'import time\ndef f():\n    time.sleep(30)\n';
  const [spin, sleep] = await underBurners(() => Promise.all([
    oracle.run({ code: forever, suite, timeout_s: 0.3 }),
    oracle.run({ code: sleeper, suite, timeout_s: 0.3 }),
  ]));
  assert.deepEqual(spin.outcomes, ['TIMEOUT']);
  assert.ok(spin.cpu_ms! >= 250, `charged by CPU: ${spin.cpu_ms} ms of CPU at the kill (wall ${spin.wall_ms} ms)`);
  assert.deepEqual(sleep.outcomes, ['TIMEOUT']);
  assert.ok(sleep.wall_ms >= 300 && sleep.wall_ms < 3000, `a sleeper is charged its blocked time: ${sleep.wall_ms} ms wall`);
  assert.ok(sleep.cpu_ms! < 200, `and uses little CPU (${sleep.cpu_ms} ms)`);
});

test('mutation verification gives the same verdicts and limits on a starved machine (MBPP tasks whose builds differed)', async () => {
  // mbpp_187 (longest common subsequence: exponential mutants) and mbpp_761 (arc_length) came out differently in
  // two builds of the same code before the limits counted CPU time.
  const { tasks } = await importMbpp(resolveSource('mbpp').path);
  const jobs: MutationJob[] = tasks
    .filter(({ task }) => ['mbpp_187', 'mbpp_761'].includes(task.task_id))
    .map(({ task }) => ({ task_id: task.task_id, canonical: task.canonical, function_name: task.function_name, suite: task.tests }));
  assert.equal(jobs.length, 2);
  const summary = (out: Awaited<ReturnType<typeof mutateAndVerify>>) => out.map((o) => ({
    task: o.task_id,
    rejection: o.rejection?.code,
    limit: o.mutant_timeout_s,
    verified: o.verified.map((v) => `${v.candidate.operator}@${v.candidate.start}:${v.verdict}:${v.failing_tests.join(',')}${v.timed_out ? ':T' : ''}`),
    selected: o.selected.map((v) => `${v.candidate.operator}@${v.candidate.start}`),
  }));
  const quiet = summary(await mutateAndVerify(jobs, oracle, { seed: 0, mutator: { cachePath: null } }));
  const loaded = summary(await underBurners(() => mutateAndVerify(jobs, oracle, { seed: 0, mutator: { cachePath: null } })));
  assert.deepEqual(loaded, quiet);
  const byTask = Object.fromEntries(quiet.map((s) => [s.task, s]));
  assert.equal(byTask.mbpp_187.limit, 0.1);
  assert.equal(byTask.mbpp_187.selected.length, 4);
  assert.equal(byTask.mbpp_761.limit, 0.1);
});
