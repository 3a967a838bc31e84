// The `check` gate profile (the distinct-subset rule only for suites of >= 5 tests), and the pre-check, the gate's
// AST stage and the sandbox agreeing on whether a check(candidate) program exercises the function.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { runGate } from '../../activities/gate/gate.ts';
import { suiteFacts } from '../../activities/python/astFacts.ts';
import { distinctSubsetsApply, getProfile } from '../../core/gate/profiles.ts';
import type { TestSuite } from '../../schemas/exec.ts';
import type { Task } from '../../schemas/task.ts';

let oracle: Oracle;
before(async () => {
  oracle = await openOracle({ cachePath: null, concurrency: 2 });
});
after(async () => {
  await oracle.close();
});

const canonical = 'def sq(x):\n    return x * x\n';
// Every one of these fails every test below: identical failing subsets.
const twins = ['x * x + 1', 'x * x - 1', 'x * x + 2', 'x * x - 2'].map((e) => ({ code: `def sq(x):\n    return ${e}\n`, bug_type: 'off_by_one', bug_description: e }));
const asserts = (n: number): TestSuite => ({ kind: 'asserts', tests: [0, 1, 2, 3, -2, 5].slice(0, n).map((x) => `assert sq(${x}) == ${x * x}`) });
const task = (id: string, tests: TestSuite): Task => ({ task_id: id, query: `square ${id}`, function_name: `sq`, canonical, tests, distractors: twins });

test('distinctSubsetsApply: the check profile from 5 tests on; default and canonical for every suite', () => {
  const check = getProfile('check');
  assert.deepEqual([1, 4, 5, 9].map((n) => distinctSubsetsApply(check, n)), [false, false, true, true]);
  assert.deepEqual([1, 7].map((n) => distinctSubsetsApply(getProfile('default'), n)), [true, true]);
  assert.equal(distinctSubsetsApply(getProfile('mbpp'), 9), false);
});

test('gate, check profile: identical failing subsets reject a 5-test suite, not a 4-test one or a program', async () => {
  const program: TestSuite = { kind: 'check', program: 'def check(candidate):\n    for x in [0, 1, 2]:\n        assert candidate(x) == x * x\n', entry_point: 'sq' };
  for (const [tests, rejected] of [[asserts(5), true], [asserts(4), false], [program, false]] as const) {
    const r = await runGate([{ task: task('t', tests) }], oracle, getProfile('check'));
    const codes = r.rejections.map((x) => x.code);
    assert.deepEqual(codes, rejected ? ['IDENTICAL_FAILURE_SUBSETS'] : [], JSON.stringify(tests));
  }
});

test('a check program calls the function when check uses its parameter or names the function: pre-check facts, AST stage and sandbox agree', async () => {
  const programs = {
    uses_param: 'def check(candidate):\n    assert candidate(3) == 9\n',
    names_function: 'def check(candidate):\n    assert sq(3) == 9\n',
    neither: 'def check(candidate):\n    assert abs(-9) == 9\n',
  };
  const suites = Object.values(programs).map((program): TestSuite => ({ kind: 'check', program, entry_point: 'sq' }));
  const facts = await suiteFacts(suites.map((suite) => ({ suite, target: 'sq' })));
  assert.deepEqual(facts.map((f) => f.map((t) => t.calls_target)), [[true], [true], [false]]);
  // The gate's AST stage (with enough tests for the schema: profile canonical, no distractors; a program kept
  // whole is one child-judged test, which the check profile allows and canonical's parent-judged minimum would not).
  const gate = await runGate(suites.map((tests, i) => ({ task: { ...task(`p${i}`, tests), function_name: 'sq', distractors: [] } })), oracle, { ...getProfile('canonical'), uniqueFunctionNames: false, parentJudgedTests: { min: 0 } });
  assert.deepEqual(gate.rejections.map((r) => [r.task_id, r.code]), [['p2', 'TEST_DOES_NOT_CALL']]);
  // The sandbox: a broken function changes the outcome exactly where the facts say the program calls it.
  const broken = 'def sq(x):\n    return None\n';
  const runs = await oracle.runMany(suites.flatMap((suite) => [{ code: canonical, suite }, { code: broken, suite }]));
  const sensitive = suites.map((_, i) => runs[2 * i].passed !== runs[2 * i + 1].passed);
  assert.deepEqual(sensitive, [true, true, false]);
});

test('gate, check profile: two different tasks that share a function name are both kept (issue 38)', async () => {
  // As on a public check-program benchmark: `add` of two numbers and `add` of an item to a list are different
  // tasks. Scoring executes a retrieved `add` of the other task against this query's tests (it is not skipped as
  // not_defined): test/scoring/score.e2e.test.ts's q_0003 / q_0004.
  const numbers: Task = {
    task_id: 'add_numbers', query: 'Add two numbers', function_name: 'add', canonical: 'def add(a, b):\n    return a + b\n',
    tests: { kind: 'check', program: 'def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n', entry_point: 'add' },
    distractors: [{ code: 'def add(a, b):\n    return a - b\n', bug_type: 'wrong_operator', bug_description: '+ to -' }],
  };
  const items: Task = {
    task_id: 'add_item', query: 'Append an item to a list, returning a new list', function_name: 'add', canonical: 'def add(xs, x):\n    return xs + [x]\n',
    tests: { kind: 'check', program: 'def check(candidate):\n    assert candidate([1], 2) == [1, 2]\n    assert candidate([], 0) == [0]\n', entry_point: 'add' },
    distractors: [{ code: 'def add(xs, x):\n    return [x] + xs\n', bug_type: 'swap_arguments', bug_description: 'order' }],
  };
  const r = await runGate([{ task: numbers }, { task: items }], oracle, getProfile('check'));
  assert.deepEqual(r.rejections.map((x) => [x.task_id, x.code]), []);
  // The paper's default profile keeps its rule: one task per function name.
  assert.equal(getProfile('default').uniqueFunctionNames, true);
});
