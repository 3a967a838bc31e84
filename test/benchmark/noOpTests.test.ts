import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropNoOpTests } from '../../activities/benchmark/noOpTests.ts';
import { astStage } from '../../core/gate/rules.ts';
import { suiteFacts } from '../../activities/python/astFacts.ts';
import type { ImportedTask } from '../../activities/importers/types.ts';
import type { Task } from '../../schemas/task.ts';

const task = (task_id: string, tests: string[]): ImportedTask => ({
  file: 'tasks.jsonl',
  line: 1,
  task: { task_id, query: 'q', function_name: 'f', canonical: 'def f(x):\n    return x\n', tests: { kind: 'asserts', tests }, distractors: [] } as Task,
});

test('no-op tests (assert True, assert 1, assert "x", assert True, "msg") are dropped and counted per task; real tests stay', async () => {
  const noOps = ['assert True', 'assert 1', 'assert "x"', 'assert True, "This prints if this assert fails 1 (good for debugging!)"', 'assert (True)', 'assert not 0'];
  // Constant-looking but able to fail, or calling something: kept.
  const real = ['assert f(1) == 1', 'assert False', 'assert 0', 'assert ""', 'assert x', 'assert True == f(True)', 'x = 1\nassert True', 'assert not f(0)'];
  const { tasks, report } = await dropNoOpTests([
    task('mixed', [...noOps, 'assert f(2) == 2']),
    task('clean', real),
    task('only-noops', ['assert True', 'assert 1']),
    { ...task('program', []), task: { ...task('program', []).task, tests: { kind: 'check', program: 'def check(candidate):\n    assert True\n    assert candidate(1) == 1\n', entry_point: 'f' } } },
  ]);
  assert.deepEqual(tasks[0].task.tests, { kind: 'asserts', tests: ['assert f(2) == 2'] });
  assert.deepEqual(tasks[1].task.tests, { kind: 'asserts', tests: real });
  // A suite of nothing but no-ops stays whole: the pre-check rejects it for calling nothing, which is true.
  assert.deepEqual(tasks[2].task.tests, { kind: 'asserts', tests: ['assert True', 'assert 1'] });
  assert.equal(tasks[3].task.tests.kind, 'check');
  assert.deepEqual(report, { dropped: noOps.length, by_task: { mixed: noOps.length } });
});

test('the gate never rejects a task for a no-op test (TEST_DOES_NOT_CALL); a real test that calls nothing still is', async () => {
  const t = task('t', ['assert True, "msg"', 'assert f(1) == 1', 'assert len([1]) == 1']).task;
  const [facts] = await suiteFacts([{ suite: t.tests, target: 'f' }]);
  assert.deepEqual(facts.map((x) => x.no_op), [true, false, false]);
  const code = { parses: true, syntax_error: null, top_level_functions: ['f'] };
  const { issues } = astStage(t, code, [], facts, { name: 'check', parentJudgedTests: { min: 0 } });
  assert.deepEqual(issues.map((i) => [i.code, i.field]), [['TEST_DOES_NOT_CALL', 'tests.tests[2]']]);
});
