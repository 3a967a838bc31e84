import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { runGate } from '../../activities/gate/gate.ts';
import { loadTasks } from '../../activities/tasks/loadTasks.ts';
import { getProfile } from '../../core/gate/profiles.ts';
import { batchIntegrity, distractorStage, schemaStage } from '../../core/gate/rules.ts';
import { releaseIntegrity } from '../../core/gate/integrity.ts';
import type { Task } from '../../schemas/task.ts';

const canon = 'def add_one(x):\n    if x is None:\n        return 0\n    return x + 1\n';
const tests = ['assert add_one(1) == 2', 'assert add_one(0) == 1', 'assert add_one(None) == 0', 'assert add_one(-1) == 0', 'assert add_one(5) == 6', 'assert add_one(10) == 11', 'assert add_one(99) == 100'];
const d = (code: string, bug_type = 'off_by_one') => ({ code, bug_type, bug_description: 'test' });
const good = (over: Partial<Task> = {}): Task => ({
  task_id: 't1',
  query: 'add one',
  function_name: 'add_one',
  canonical: canon,
  tests: { kind: 'asserts', tests },
  distractors: [
    d(canon.replace('x + 1', 'x + 2')),
    d(canon.replace('return 0', 'return 1')),
    d(canon.replace('x + 1', 'x - 1'), 'wrong_operator'),
    d(canon.replace('x is None', 'x is not None'), 'wrong_comparison'),
  ],
  ...over,
});

describe('gate rules (pure)', () => {
  test('schema bounds follow the profile', () => {
    const t = good({ distractors: good().distractors.slice(0, 3) });
    assert.deepEqual(schemaStage(t, getProfile('default')).map((i) => i.code), ['DISTRACTOR_COUNT']);
    assert.deepEqual(schemaStage(t, getProfile('mbpp')).map((i) => i.code), ['TEST_COUNT']);
    const wrong = good({ distractors: [...good().distractors.slice(0, 3), d(canon, 'wrong_semantics')] });
    assert.deepEqual(schemaStage(wrong, getProfile('default')).map((i) => [i.code, i.field]), [['BUG_TYPE_NOT_ALLOWED', 'distractors[3].bug_type']]);
  });

  test('distractor stage: passes, crash-only, pure syntax error, identical subsets', () => {
    assert.deepEqual(distractorStage([['pass', 'FAIL'], ['FAIL', 'pass']]), []);
    assert.deepEqual(distractorStage([['pass', 'pass'], ['FAIL', 'pass']]).map((i) => i.code), ['DISTRACTOR_PASSES']);
    assert.deepEqual(distractorStage([['ERROR: TypeError', 'TIMEOUT'], ['FAIL', 'pass']]).map((i) => i.code), ['DISTRACTOR_CRASH_ONLY']);
    assert.deepEqual(distractorStage([['ERROR: SyntaxError', 'ERROR: SyntaxError'], ['pass', 'FAIL']]).map((i) => i.code), ['DISTRACTOR_SYNTAX_ERROR']);
    assert.deepEqual(distractorStage([['FAIL: x', 'pass'], ['FAIL', 'pass']]).map((i) => i.code), ['IDENTICAL_FAILURE_SUBSETS']);
    // The mbpp profile (3 tests per task) lets identical subsets through; the other rules still hold.
    assert.equal(getProfile('mbpp').distinctFailureSubsets, false);
    assert.deepEqual(distractorStage([['FAIL: x', 'pass'], ['FAIL', 'pass']], false), []);
    assert.deepEqual(distractorStage([['pass', 'pass'], ['FAIL', 'pass']], false).map((i) => i.code), ['DISTRACTOR_PASSES']);
  });

  test('batch integrity: duplicate ids always, duplicate function names unless the profile allows them', () => {
    const tasks = [{ task_id: 'a', function_name: 'f' }, { task_id: 'b', function_name: 'f' }, { task_id: 'a', function_name: 'g' }];
    assert.deepEqual([...batchIntegrity(tasks)].map(([i, is]) => [i, is.map((x) => x.code)]), [[1, ['DUPLICATE_FUNCTION_NAME']], [2, ['DUPLICATE_TASK_ID']]]);
    assert.deepEqual([...batchIntegrity(tasks, false)].map(([i, is]) => [i, is.map((x) => x.code)]), [[2, ['DUPLICATE_TASK_ID']]]);
  });

  test('release integrity: missing, duplicate and unreferenced ids', () => {
    const q = (query_id: string, correct: string[]) => ({ query_id, query: 'q', function_name: 'f', domain: null, tests: ['assert f()'], test_setup_code: null, test_program: null, entry_point: null, correct_corpus_ids: correct, distractor_corpus_ids: [], source: null, metadata: {} });
    const c = (corpus_id: string, is_canonical = true) => ({ corpus_id, query_id: 'q1', function_name: 'f', code: '', is_canonical, bug_type: null, bug_description: null, metadata: {} });
    const problems = releaseIntegrity([q('q1', ['a']), q('q1', ['zz'])], [c('a'), c('a'), c('b')]);
    assert.deepEqual(problems.map((p) => p.code).sort(), ['DUPLICATE_CORPUS_ID', 'DUPLICATE_QUERY_ID', 'MISSING_CORPUS_ID', 'UNREFERENCED_CANONICAL']);
  });
});

describe('the five gates with real execution', () => {
  let oracle: Oracle;
  let dir: string;
  before(async () => {
    oracle = await openOracle({ cachePath: null, concurrency: 2 });
    dir = mkdtempSync(join(tmpdir(), 'er-gate-'));
  });
  after(async () => {
    await oracle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('each bad record is rejected at its stage with a reason; the rest of the batch goes on', async () => {
    const collide = 'def add_one(x):\n    if x is None:\n        return 0\n    return x + 1\n\ndef twice(x):\n    return 2 * x\n';
    const records: unknown[] = [
      good(),
      good({ task_id: 't2', function_name: 'add_one_b', canonical: canon.replace(/add_one/g, 'add_one_b'), tests: { kind: 'asserts', tests: tests.map((t) => t.replace('add_one', 'add_one_b')) }, distractors: good().distractors.map((x) => ({ ...x, code: x.code.replace(/add_one/g, 'add_one_b') })) }),
      good({ task_id: 't3', function_name: 'add_one_c', canonical: canon.replace('add_one', 'add_one_c').replace('x + 1', 'x + 3'), tests: { kind: 'asserts', tests: tests.map((t) => t.replace('add_one', 'add_one_c')) }, distractors: good().distractors.map((x) => ({ ...x, code: x.code.replace('add_one', 'add_one_c') })) }),
      good({ task_id: 't4', tests: { kind: 'asserts', tests: [...tests.slice(0, 6), 'assert 1 + 1 == 2'] } }),
      good({ task_id: 't5', distractors: [...good().distractors.slice(0, 3), d('def add_one(x):\n    return x.nope\n')] }),
      good({ task_id: 't6', distractors: [...good().distractors.slice(0, 3), d('def add_one(x) return\n')] }),
      good(),
      good({ task_id: 't8', function_name: 'twice', canonical: 'def twice(x):\n    return x + x\n', tests: { kind: 'asserts', tests: ['assert twice(0) == 0', 'assert twice(1) == 2', 'assert twice(2) == 4', 'assert twice(-3) == -6', 'assert twice(10) == 20', 'assert twice(7) == 14', 'assert twice(100) == 200'] },
        distractors: [d('def twice(x):\n    return x + x + 1\n'), d('def twice(x):\n    return x * x\n', 'wrong_operator'), d('def twice(x):\n    return x - x\n', 'wrong_operator'), d('def twice(x):\n    return x + x - 1\n')] }),
    ];
    // t2's canonical also defines twice(): the cross-canonical sweep must run it against t8's tests.
    (records[1] as Task).canonical = collide.replace(/add_one/g, 'add_one_b');
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n{"task_id": "broken", \n{"task_id": "t9"}\n');
    const { items, errors } = loadTasks(file);
    assert.equal(items.length, 8);
    assert.equal(errors[0].line, 9);
    assert.match(errors[0].message, /malformed JSON/);
    assert.ok(errors.some((e) => e.line === 10 && e.field === 'query'), 'missing field named');

    const report = await runGate(items, oracle, getProfile('default'));
    const by: Record<string, string> = {};
    for (const r of report.rejections) by[`${r.task_id}@${r.line}`] = [by[`${r.task_id}@${r.line}`], `${r.stage_name}:${r.code}`].filter(Boolean).join(' ');
    assert.deepEqual(by, {
      't3@3': 'canonical_execution:CANONICAL_FAILS',
      't4@4': 'ast_semantics:TEST_DOES_NOT_CALL',
      't5@5': 'distractor_execution:DISTRACTOR_CRASH_ONLY',
      't6@6': 'distractor_execution:DISTRACTOR_SYNTAX_ERROR',
      't1@7': 'corpus_integrity:DUPLICATE_TASK_ID corpus_integrity:DUPLICATE_FUNCTION_NAME',
    });
    assert.deepEqual(report.accepted.map((t) => t.task_id), ['t1', 't2', 't8']);
    assert.deepEqual(report.stage_counts.distractor_execution, { entered: 6, passed: 4, rejected: 2 });
    assert.deepEqual(report.accepted[0].distractors[0].failing_tests, [0, 1, 3, 4, 5, 6]);
    assert.equal(report.sweeps.distractor_sanity.passing_all_own_tests, 0);
    assert.equal(report.sweeps.cross_canonical.candidates, 1);
    assert.deepEqual(report.sweeps.cross_canonical.passing.map((h) => [h.corpus_task_id, h.query_task_id]), [['t2', 't8']]);
  });

  test('a suite the candidate would judge itself is rejected: the profile counts parent-judged tests, as the sandbox judges them', async () => {
    // Three of seven tests pass the candidate an argument that cannot cross as data (issue 36): the child judges those.
    const childJudged = ['from fractions import Fraction\nassert add_one(Fraction(1)) == 2', 'from decimal import Decimal\nassert add_one(Decimal(1)) == 2', 'class N(int):\n    pass\nassert add_one(N(1)) == 2'];
    const mixed = good({ tests: { kind: 'asserts', tests: [...tests.slice(0, 4), ...childJudged] } });
    const fewer = good({ tests: { kind: 'asserts', tests: [...tests.slice(0, 5), ...childJudged.slice(0, 2)] } });
    const direct = await oracle.run({ code: canon, suite: mixed.tests, timeout_s: 5 });
    // Which side judges a test is decided as it runs; the gate counts it from the canonical's execution.
    assert.deepEqual(direct.judged, ['parent', 'parent', 'parent', 'parent', 'child', 'child', 'child']);

    const rejected = await runGate(loadTasksFrom([mixed]), oracle, getProfile('default'));
    assert.deepEqual(rejected.rejections.map((r) => [r.stage_name, r.code]), [['canonical_execution', 'TOO_FEW_PARENT_JUDGED']]);
    assert.match(rejected.rejections[0].message, /4 of 7 passes .* at least 5/);
    assert.equal((await runGate(loadTasksFrom([fewer]), oracle, getProfile('default'))).accepted.length, 1, 'five parent-judged tests are enough');
    // mbpp's profile states 0 (two MBPP tasks have none): the same record passes its AST stage there.
    const mbpp = await runGate(loadTasksFrom([{ ...mixed, tests: { kind: 'asserts', tests: childJudged } }]), oracle, getProfile('mbpp'));
    assert.ok(!mbpp.rejections.some((r) => r.code === 'TOO_FEW_PARENT_JUDGED'));
  });

  test('the profile is enforced on what the judge decided: a canonical that rebinds abs is rejected at run time, from the cache too', async () => {
    // Statically every test is judge-run; this canonical defines its own abs, so the three tests that
    // call abs mean the canonical's and are judged in the child: 4 of 7 parent-judged passes, the profile wants 5.
    const absTests = ['assert abs(add_one(1) - 2) < 1e-9', 'assert abs(add_one(0)) == 1', 'assert abs(add_one(-3)) == 2', ...tests.slice(2, 6)];
    const rebinds = good({ canonical: `${canon}def abs(x):\n    return x if x >= 0 else -x\n`, tests: { kind: 'asserts', tests: absTests } });
    const plain = good({ task_id: 't2', function_name: 'add_one', tests: { kind: 'asserts', tests: absTests } });
    const cacheDir = mkdtempSync(join(tmpdir(), 'er-gate-judged-'));
    const cached = await openOracle({ cachePath: join(cacheDir, 'exec.sqlite'), concurrency: 2 });
    try {
      for (const round of ['cold', 'cached']) {
        const report = await runGate(loadTasksFrom([rebinds]), cached, getProfile('default'));
        assert.deepEqual(report.rejections.map((r) => [r.stage_name, r.code]), [['canonical_execution', 'TOO_FEW_PARENT_JUDGED']], round);
        assert.match(report.rejections[0].message, /4 of 7 passes/);
        assert.equal((await runGate(loadTasksFrom([plain]), cached, getProfile('default'))).accepted.length, 1, `${round}: the same tests, builtin abs`);
      }
      const hit = await cached.run({ code: rebinds.canonical, suite: rebinds.tests });
      assert.equal(hit.cached, true);
      assert.deepEqual(hit.judged, ['child', 'child', 'child', 'parent', 'parent', 'parent', 'parent']);
    } finally {
      await cached.close();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  const loadTasksFrom = (tasks: Task[]) => {
    const file = join(dir, `pj-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
    return loadTasks(file).items;
  };

  test('the validate command prints file:line and exits non-zero on rejections', () => {
    const file = join(dir, 'cli.jsonl');
    writeFileSync(file, JSON.stringify(good()) + '\n' + JSON.stringify(good({ task_id: 'bad', function_name: 'other', distractors: [] })) + '\nnot json\n');
    const bin = new URL('../../bin/execretrieval.js', import.meta.url).pathname;
    const r = spawnSync(process.execPath, [bin, 'validate', file], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stdout, /2 tasks read, 1 accepted, 1 rejected, 1 unreadable/);
    assert.match(r.stdout, /cli\.jsonl:2 bad \[schema\] DISTRACTOR_COUNT distractors: 0 distractors/);
    assert.match(r.stdout, /cli\.jsonl:3 malformed JSON/);
    const ok = execFileSync(process.execPath, [bin, 'validate', new URL('../../data/samples/tasks.jsonl', import.meta.url).pathname, '--json'], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(ok).accepted, ['sample_001', 'sample_002', 'sample_003']);
  });
});
