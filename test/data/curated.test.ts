import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMAINS, Task } from '../../schemas/task.ts';
import { projectRoot } from '../../activities/paths.ts';
import { mbppCandidates } from '../../activities/benchmark/sources.ts';

// The shipped curated task set (issue 3, "Shipped data"): ten domains x ten tasks, each valid against the Task
// schema, plus the Python checker that runs every trusted canonical against its own tests.

const root = projectRoot();
const dir = join(root, 'data', 'tasks', 'curated');
const checker = join(root, 'infra', 'python', 'check_tasks.py');

function basePython(): string {
  // The base interpreter recorded by bootstrap, used by absolute path (a pyenv shim costs ~50 ms a call).
  const cfg = JSON.parse(readFileSync(join(root, '.execretrieval', 'python.json'), 'utf8')) as { python: string };
  return cfg.python;
}

function loadCurated(): { file: string; line: number; task: Task }[] {
  const out: { file: string; line: number; task: Task }[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
    const lines = readFileSync(join(dir, name), 'utf8').split('\n');
    lines.forEach((text, i) => {
      if (!text.trim()) return;
      const parsed = Task.safeParse(JSON.parse(text));
      assert.ok(parsed.success, `${name}:${i + 1}: ${parsed.success ? '' : parsed.error.message}`);
      out.push({ file: name, line: i + 1, task: parsed.data });
    });
  }
  return out;
}

function mbppFunctionNames(path: string): Set<string> {
  const names = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const code = (JSON.parse(line) as { code: string }).code;
    for (const m of code.matchAll(/def\s+(\w+)/g)) names.add(m[1]);
  }
  return names;
}

test('one file per domain, ten schema-valid tasks each, ids and domains consistent', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
  assert.deepEqual(files, [...DOMAINS].map((d) => `${d}.jsonl`).sort());
  const tasks = loadCurated();
  assert.ok(tasks.length >= 100, `${tasks.length} tasks`);
  for (const d of DOMAINS) {
    const mine = tasks.filter((t) => t.file === `${d}.jsonl`);
    assert.equal(mine.length, 10, `${d}: ${mine.length} tasks`);
    mine.forEach(({ task, line }, i) => {
      assert.equal(task.domain, d, `${d}.jsonl:${line} domain`);
      assert.equal(task.task_id, `cur_${d}_${String(i + 1).padStart(2, '0')}`, `${d}.jsonl:${line} task_id`);
    });
  }
});

test('function names are unique, absent from the queries, and not MBPP names', (t) => {
  const tasks = loadCurated();
  const names = tasks.map(({ task }) => task.function_name);
  assert.equal(new Set(names).size, names.length, 'duplicate function_name');
  for (const { file, line, task } of tasks) {
    assert.ok(!task.query.includes(task.function_name), `${file}:${line} query mentions ${task.function_name}`);
    assert.deepEqual(task.distractors, [], `${file}:${line} distractors must ship empty`);
  }
  const mbpp = mbppCandidates().find((p) => existsSync(p));
  if (!mbpp) {
    t.diagnostic('MBPP not found (set EXECRETRIEVAL_MBPP): the MBPP name clash check did not run');
    return;
  }
  const taken = mbppFunctionNames(mbpp);
  assert.ok(taken.size > 900, `read ${taken.size} MBPP function names from ${mbpp}`);
  const clashes = names.filter((n) => taken.has(n));
  assert.deepEqual(clashes, [], 'function names also used by MBPP');
});

test('every task has 7-10 single-line assert tests that call its function', () => {
  for (const { file, line, task } of loadCurated()) {
    assert.equal(task.tests.kind, 'asserts');
    if (task.tests.kind !== 'asserts') continue;
    const tests = task.tests.tests;
    assert.ok(tests.length >= 7 && tests.length <= 10, `${file}:${line} has ${tests.length} tests`);
    assert.equal(new Set(tests).size, tests.length, `${file}:${line} duplicate tests`);
    for (const [i, src] of tests.entries()) {
      assert.match(src, /^assert /, `${file}:${line} tests[${i}]`);
      assert.ok(!src.includes('\n'), `${file}:${line} tests[${i}] is not one line`);
      assert.ok(src.includes(`${task.function_name}(`), `${file}:${line} tests[${i}] does not call ${task.function_name}`);
    }
    assert.match(task.canonical, new RegExp(`^def ${task.function_name}\\(`, 'm'), `${file}:${line} canonical`);
  }
});

test('check_tasks.py: every curated canonical passes all of its tests', () => {
  const r = spawnSync(basePython(), [checker, '--curated', '--json', dir], { encoding: 'utf8', timeout: 240_000 });
  assert.equal(r.error, undefined, String(r.error));
  const report = JSON.parse(r.stdout) as { tasks: number; failed: number; reports: { where: string; problems: string[] }[] };
  const bad = report.reports.filter((x) => x.problems.length).map((x) => `${x.where}: ${x.problems.join('; ')}`);
  assert.deepEqual(bad, []);
  assert.equal(report.tasks, 100);
  assert.equal(r.status, 0, r.stderr);
});

test('expected values agree with independent references (stdlib, textbook identities) where one exists', () => {
  const script = join(root, 'test', 'data', 'reference_check.py');
  type Ref = { checked: Record<string, number>; mismatches: string[] };
  const run = (d: string) => JSON.parse(execFileSync(basePython(), [script, d], { encoding: 'utf8', timeout: 60_000 })) as Ref;
  const ref = run(dir);
  assert.deepEqual(ref.mismatches, []);
  // Every test of every task with a reference was checked (29 tasks have one: see reference_check.py).
  const byName = new Map(loadCurated().map(({ task }) => [task.function_name, task]));
  assert.equal(Object.keys(ref.checked).length, 29);
  for (const [name, n] of Object.entries(ref.checked)) {
    const task = byName.get(name)!;
    assert.equal(n, task.tests.kind === 'asserts' ? task.tests.tests.length : -1, name);
  }
  // The reference check can fail: a copy with one expected value off by one is caught.
  const tmp = mkdtempSync(join(tmpdir(), 'curated-ref-'));
  try {
    const lines = readFileSync(join(dir, 'date_time.jsonl'), 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0]) as { tests: { tests: string[] } };
    assert.equal(first.tests.tests[0], 'assert days_in_month(2024, 2) == 29');
    first.tests.tests[0] = 'assert days_in_month(2024, 2) == 28';
    writeFileSync(join(tmp, 'date_time.jsonl'), [JSON.stringify(first), ...lines.slice(1)].join('\n') + '\n');
    const bad = run(tmp);
    assert.equal(bad.mismatches.length, 1);
    assert.match(bad.mismatches[0], /days_in_month\(2024, 2\) == 28 but reference gives 29/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('check_tasks.py rejects broken tasks and names the record and field', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'curated-check-'));
  try {
    const good = { task_id: 'x1', query: 'add one', function_name: 'inc', canonical: 'def inc(x):\n    return x + 1\n', distractors: [] };
    const tests = (t: string[]) => ({ kind: 'asserts', tests: t });
    const seven = (f: string) => [0, 1, 2, 3, 4, 5, 6].map((i) => `assert ${f}(${i}) == ${i + 1}`);
    const records = [
      { ...good, tests: tests(seven('inc')) },
      // canonical fails its own test 0 (expected value wrong)
      { ...good, task_id: 'x2', function_name: 'inc2', canonical: 'def inc2(x):\n    return x + 2\n', tests: tests(seven('inc2')) },
      // a test that does not call the function
      { ...good, task_id: 'x3', function_name: 'inc3', canonical: 'def inc3(x):\n    return x + 1\n', tests: tests([...seven('inc3').slice(0, 6), 'assert 1 == 1']) },
      // duplicate function name
      { ...good, task_id: 'x4', tests: tests(seven('inc')) },
      // too few tests
      { ...good, task_id: 'x5', function_name: 'inc5', canonical: 'def inc5(x):\n    return x + 1\n', tests: tests(seven('inc5').slice(0, 3)) },
    ];
    const file = join(tmp, 'bad.jsonl');
    writeFileSync(file, records.map((x) => JSON.stringify(x)).join('\n') + '\n{not json\n');
    const r = spawnSync(basePython(), [checker, '--json', file], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 1, r.stderr);
    const report = JSON.parse(r.stdout) as { reports: { where: string; problems: string[] }[] };
    const at = (n: number) => report.reports.find((x) => x.where === `${file}:${n}`)!.problems.join(' | ');
    assert.equal(at(1), '');
    assert.match(at(2), /tests\.tests\[0\]: canonical gives FAIL/);
    assert.match(at(3), /tests\.tests\[6\]: does not call inc3\(\)/);
    assert.match(at(4), /function_name: 'inc' already used at .*bad\.jsonl:1/);
    assert.match(at(5), /tests\.tests: 3 tests, expected 7-10/);
    assert.match(at(6), /record: invalid JSON/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('check_tasks.py mutation pre-check matches a hand-worked case', () => {
  // def f(x): if x < 0: return 0; return x + 1 -- with tests f(-1) == 0, f(0) == 1, f(5) == 6.
  // Candidates (worked by hand): constants 0 (in `x < 0`), 0 (returned), 1 (added) each +-1 -> 6 off_by_one;
  // `<` -> `>` (wrong_comparison) and `<` -> `<=` (off_by_one_boundary); `+` -> `-` (wrong_operator);
  // deleting the guard (remove_edge_case_check): 10 in all.
  // Equivalent under these tests: `x < -1` (f(-1) = -1 + 1 = 0 still) and the deleted guard (same reason).
  // Every other mutant gives a wrong value on some test, so 8 killed by wrong output, 0 crash-only,
  // over 4 bug types (off_by_one, wrong_comparison, off_by_one_boundary, wrong_operator).
  const tmp = mkdtempSync(join(tmpdir(), 'curated-mut-'));
  try {
    const rec = {
      task_id: 'h1', query: 'q', function_name: 'f', distractors: [],
      canonical: 'def f(x):\n    if x < 0:\n        return 0\n    return x + 1\n',
      tests: { kind: 'asserts', tests: ['assert f(-1) == 0', 'assert f(0) == 1', 'assert f(5) == 6', 'assert f(1) == 2', 'assert f(2) == 3', 'assert f(3) == 4', 'assert f(4) == 5'] },
    };
    const file = join(tmp, 'one.jsonl');
    writeFileSync(file, JSON.stringify(rec) + '\n');
    const out = execFileSync(basePython(), [checker, '--mutants', '--json', file], { encoding: 'utf8', timeout: 120_000 });
    const m = (JSON.parse(out) as { reports: { mutants: Record<string, unknown> }[] }).reports[0].mutants;
    assert.equal(m.candidates, 10);
    assert.equal(m.killed, 8);
    assert.equal(m.crash_only, 0);
    assert.equal(m.equivalent, 2);
    assert.deepEqual(m.killed_types, ['off_by_one', 'off_by_one_boundary', 'wrong_comparison', 'wrong_operator']);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
