// The not_defined rule (core/scoring/notDefined.ts) against the real oracle: every pair it would skip is run
// anyway here, and must fail; every trick that binds a name without spelling it must be left to execution.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { nameFacts } from '../../activities/python/astFacts.ts';
import { importTaskFiles } from '../../activities/importers/taskJsonl.ts';
import { projectRoot } from '../../activities/paths.ts';
import { undefinedName } from '../../core/scoring/notDefined.ts';
import type { TestSuite } from '../../schemas/exec.ts';
import { join } from 'node:path';

let oracle: Oracle;
before(async () => {
  oracle = await openOracle({ cachePath: null, concurrency: 2 });
});
after(async () => {
  await oracle.close();
});

async function skips(pairs: readonly { code: string; suite: TestSuite }[]): Promise<(string | null)[]> {
  const facts = await nameFacts(
    pairs.map((p, i) => ({ id: String(i), code: p.code })),
    pairs.map((p, i) => ({ id: String(i), suite: p.suite })),
  );
  return pairs.map((_, i) => {
    const s = facts.snippets.get(String(i));
    const u = facts.suites.get(String(i));
    return s && u ? undefinedName(s, u) : null;
  });
}

const asserts = (tests: string[], setup?: string): TestSuite => (setup ? { kind: 'asserts', tests, setup } : { kind: 'asserts', tests });
const calls = asserts(['assert target(1) == 1']);

// [why, snippet, suite, whether the rule may skip it]
const CASES: [string, string, TestSuite, boolean][] = [
  ['another function: NameError', 'def other(x):\n    return x\n', calls, true],
  ['the function itself', 'def target(x):\n    return x\n', calls, false],
  ['exec of a string', "exec('def tar' + 'get(x): return x')", calls, false],
  ['globals() with a built name', "globals()['tar' + 'get'] = lambda x: x", calls, false],
  ['setattr on builtins', "import builtins\nsetattr(builtins, 'tar' + 'get', lambda x: x)", calls, false],
  ["a builtin's __self__.__dict__", "print.__self__.__dict__['tar' + 'get'] = lambda x: x", calls, false],
  ['vars() of sys.modules', "import sys\nvars(sys.modules['builtins'])['tar' + 'get'] = lambda x: x", calls, false],
  ['import *', 'from math import *', asserts(['assert sqrt(4) == 2']), false],
  ['import as the name', 'import math as target', asserts(['assert target.sqrt(4) == 2']), false],
  ['global statement in a function', 'def g():\n    global target\n    target = lambda x: x\ng()\n', calls, false],
  ['match capture', 'match (lambda x: x):\n    case target:\n        pass\n', calls, false],
  ['for target', 'for target in [lambda x: x]:\n    pass\n', calls, false],
  ['class of that name', 'class target:\n    def __new__(cls, x):\n        return x\n', calls, false],
  ['a builtin name', 'def other():\n    pass\n', asserts(['assert len([1]) == 1']), false],
  ['a sandbox-provided name', 'def other():\n    pass\n', asserts(['assert pytest is not None']), false],
  ['short-circuit or', 'def other():\n    pass\n', asserts(['assert True or target(1)']), false],
  ['assertion message', 'def other():\n    pass\n', asserts(['assert 1 == 1, target']), false],
  ['later comparator of a chain', 'def other():\n    pass\n', asserts(['assert not (1 > 2 > target(1))']), false],
  ['lambda body', 'def other():\n    pass\n', asserts(['assert callable(lambda: target)']), false],
  ['comprehension body', 'def other():\n    pass\n', asserts(['assert [target for _ in []] == []']), false],
  ['generator body', 'def other():\n    pass\n', asserts(['assert list(target(x) for x in []) == []']), false],
  ['conditional expression branch', 'def other():\n    pass\n', asserts(['assert (target if False else 1) == 1']), false],
  ['the test binds it', 'def other():\n    pass\n', asserts(['target = lambda x: x\nassert target(1) == 1']), false],
  ['walrus in the test', 'def other():\n    pass\n', asserts(['assert (target := 5) == 5']), false],
  ['the setup binds it', 'def other():\n    pass\n', asserts(['assert target(1) == 1'], 'def target(x):\n    return x\n'), false],
  ['the setup is dynamic', 'def other():\n    pass\n', asserts(['assert target(1) == 1'], "exec('target = lambda x: x')"), false],
  ['a syntax error is left to the oracle', 'def other(:\n', calls, false],
  ['the second test calls it', 'def other():\n    pass\n', asserts(['assert 1 == 1', 'assert target(2) == 2']), true],
  ['looked up in an if test', 'def other():\n    pass\n', asserts(['if target(1):\n    pass']), true],
  ['first iterator of a generator', 'def other():\n    pass\n', asserts(['assert list(x for x in target(1)) == []']), true],
  ['call argument', 'def other(x):\n    return x\n', asserts(['assert other(target) == 1']), true],
  ['check suite, entry point missing', 'def other(x):\n    return 2 * x\n', { kind: 'check', program: 'def check(c):\n    assert c(2) == 4\n', entry_point: 'target' }, true],
  ['check suite, entry point present', 'def target(x):\n    return 2 * x\n', { kind: 'check', program: 'def check(c):\n    assert c(2) == 4\n', entry_point: 'target' }, false],
  ['check program defines it', 'pass', { kind: 'check', program: 'def target(x):\n    return 2 * x\ndef check(c):\n    assert c(2) == 4\n', entry_point: 'target' }, false],
];

describe('not_defined: the rule against the oracle', () => {
  test('skips exactly the cases that cannot pass; every trick that passes is run', async () => {
    const pairs = CASES.map(([, code, suite]) => ({ code, suite }));
    const [decided, truth] = await Promise.all([skips(pairs), oracle.runMany(pairs)]);
    CASES.forEach(([why, , , expected], i) => {
      if (decided[i] !== null) assert.equal(truth[i].passed, false, `${why}: skipped but it passes`);
      assert.equal(decided[i] !== null, expected, `${why}: skip=${decided[i]} (oracle: ${truth[i].outcomes.join(', ')})`);
    });
    // The tricks are real: each of them passes when run.
    // A check program that defines the entry point itself no longer passes code that lacks it: the program is
    // loaded before the candidate's code and the entry point is looked up among the candidate's names (issue 25).
    const programDefines = CASES.findIndex(([why]) => why === 'check program defines it');
    assert.match(truth[programDefines].outcomes.join(', '), /^ERROR/);
    const tricks = CASES.map((c, i) => [c, truth[i]] as const).filter(([[why, , , skip]]) => !skip && why !== 'a syntax error is left to the oracle' && why !== 'check program defines it');
    for (const [[why], r] of tricks) assert.equal(r.passed, true, `${why}: expected to pass (${r.outcomes.join(', ')})`);
    // A skipped assert suite fails by NameError, a check suite by the missing entry point (KeyError).
    assert.deepEqual(truth[0].outcomes, ['ERROR: NameError']);
    assert.deepEqual(truth[CASES.findIndex(([w]) => w === 'check suite, entry point missing')].outcomes, ['ERROR: KeyError']);
  });

  test('on the curated tasks: every cross pair it skips fails when run, and it skips most cross pairs', async () => {
    const { tasks } = importTaskFiles(join(projectRoot(), 'data', 'tasks', 'curated'));
    const sample = tasks.slice(0, 20).map((t) => t.task);
    const pairs = sample.flatMap((s) => sample.map((t) => ({ code: s.canonical, suite: t.tests, own: s === t })));
    const [decided, truth] = await Promise.all([skips(pairs), oracle.runMany(pairs)]);
    let skipped = 0;
    pairs.forEach((p, i) => {
      if (decided[i] === null) return;
      skipped++;
      assert.equal(p.own, false, 'a canonical against its own suite is never skipped');
      assert.equal(truth[i].passed, false, `skipped pair ${i} passes`);
      assert.ok(truth[i].outcomes.includes('ERROR: NameError'), `skipped pair ${i}: ${truth[i].outcomes.join(', ')}`);
    });
    const cross = pairs.filter((p) => !p.own).length;
    assert.ok(skipped > 0.9 * cross, `${skipped} of ${cross} cross pairs skipped`);
  });
});
