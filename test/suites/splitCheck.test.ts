// check(candidate) programs split into one test per top-level assert: the planner over Python's own ast facts,
// checked against what the program form does when Python runs it directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { checkProgramFacts } from '../../activities/python/astFacts.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';
import { planCheckSplit } from '../../core/suites/splitCheck.ts';

const plan = async (program: string, entry: string) => planCheckSplit(program, entry, (await checkProgramFacts([program]))[0]);

/** Runs code + setup + each test in a fresh namespace with plain Python (no project code): pass or the exception. */
function runSplit(code: string, setup: string, tests: string[]): string[] {
  const script = `import json, sys\nreq = json.load(sys.stdin)\nout = []\nfor t in req['tests']:\n    ns = {}\n    try:\n        exec(req['code'], ns); exec(req['setup'], ns); exec(t, ns); out.append('pass')\n    except BaseException as e:\n        out.append(type(e).__name__)\nprint(json.dumps(out))\n`;
  return JSON.parse(execFileSync(pythonExecutable(), ['-I', '-c', script], { input: JSON.stringify({ code, setup, tests }) }).toString());
}

const program = [
  'import math',
  "METADATA = {'author': 'x'}",
  '',
  'def near(a, b):',
  '    return math.isclose(a, b)',
  '',
  'def check(candidate):',
  '    """Checks area()."""',
  '    unit = 1.0',
  '    def twice(r):',
  '        return 2 * candidate(r)',
  '    assert near(candidate(unit), math.pi)',
  '    assert near(twice(2.0),',
  '                8 * math.pi)  # continuation line',
  "    assert candidate(0) == 0, 'é' + str(candidate)",
  '',
  'check(area)',
  '',
].join('\n');

test('split: one test per assert, setup and helpers kept, candidate bound and renamed, check(...) call dropped', async () => {
  const r = await plan(program, 'area');
  assert.ok(r.split, 'splittable');
  if (!r.split) return;
  assert.deepEqual(r.suite.tests, [
    'assert near(area(unit), math.pi)',
    'assert near(twice(2.0),\n            8 * math.pi)  # continuation line',
    // A non-ASCII character before the second use: columns are characters, not UTF-8 bytes.
    "assert area(0) == 0, 'é' + str(area)",
  ]);
  assert.equal(r.suite.setup, [
    'import math', "METADATA = {'author': 'x'}", 'def near(a, b):', '    return math.isclose(a, b)',
    'candidate = area', '"""Checks area()."""', 'unit = 1.0', 'def twice(r):', '    return 2 * candidate(r)', '',
  ].join('\n'));
  const good = 'import math\ndef area(r):\n    return math.pi * r * r\n';
  assert.deepEqual(runSplit(good, r.suite.setup!, r.suite.tests), ['pass', 'pass', 'pass']);
  // A wrong function fails exactly the tests it should (the program form would report one failure only).
  const wrong = 'import math\ndef area(r):\n    return math.pi * r * r + (1 if r > 1 else 0)\n';
  assert.deepEqual(runSplit(wrong, r.suite.setup!, r.suite.tests), ['pass', 'AssertionError', 'pass']);
});

test('split is refused where it could change what is tested, with the reason', async () => {
  const head = 'def check(candidate):\n';
  const cases: [string, string][] = [
    [head + '    for x in [1, 2]:\n        assert candidate(x) == x\n', 'an assert inside a loop, helper or block'],
    [head + '    def ok(x):\n        assert candidate(x) == x\n    ok(1)\n    ok(2)\n', 'an assert inside a loop, helper or block'],
    [head + '    xs = [1]\n    assert candidate(xs) == 1\n    xs.append(2)\n    assert candidate(xs) == 2\n', 'a statement between asserts'],
    [head + '    assert (lambda candidate: candidate(1))(abs) == 1\n    assert candidate(1) == 1\n', 'an assert rebinds candidate'],
    [head + '    assert candidate(1) == 1; assert candidate(2) == 2\n', 'two statements on one line'],
    [head + '    candidate(1)\n', 'check has no top-level assert'],
    ['def check():\n    assert f(1) == 1\n', 'check takes no parameter'],
    ['assert f(1) == 1\n', 'no top-level def check(...)'],
    ['def check(candidate):\n    assert candidate(1 ==\n', ''],
  ];
  for (const [src, reason] of cases) {
    const r = await plan(src, 'f');
    assert.equal(r.split, false, src);
    if (r.split) continue;
    if (reason) assert.equal(r.reason, reason, src);
    else assert.match(r.reason, /^program does not parse: SyntaxError/);
  }
});
