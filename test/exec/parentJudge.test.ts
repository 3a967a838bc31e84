/**
 * The judge decides (issue 25): the child evaluates only the candidate's parts of a test and returns plain data;
 * the rest of the assert, `pytest.raises` included, is evaluated by the judge with its own builtins; no child
 * holds an expected value of any test of the suite. Each attack is a wrong canonical in a batch with good suites
 * whose verdicts must not change. Needs what CI has: root on a kernel with Landlock and seccomp.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import type { ExecRequest, ExecResult, TestSuite } from '../../schemas/exec.ts';

const asserts = (...tests: string[]): TestSuite => ({ kind: 'asserts', tests });
const GOOD: ExecRequest = {
  code: 'import math\ndef g(x):\n    return x * 2.5\n',
  suite: asserts('assert abs(g(1) - 2.5) < 1e-9', 'assert math.isclose(g(2), 5.0)', 'r = g(2)\nassert r == 5.0', 'import pytest\nwith pytest.raises(TypeError):\n    g(None)'),
};

describe('parent-judged tests are decided by the judge alone (issue 25)', () => {
  let oracle: Oracle;
  before(async () => {
    oracle = await openOracle({ cachePath: null, concurrency: 2 });
  });
  after(async () => oracle.close());

  async function inBatch(attack: ExecRequest): Promise<ExecResult> {
    const [a, r, b] = await oracle.runMany([GOOD, attack, { ...GOOD, code: GOOD.code + '\n' }]);
    for (const good of [a, b]) {
      assert.deepEqual(good.outcomes, ['pass', 'pass', 'pass', 'pass'], 'good suite');
      assert.deepEqual(good.judged, ['parent', 'parent', 'parent', 'parent']);
    }
    assert.equal(r.infra_error, undefined);
    return r;
  }

  test('an object overriding __sub__ cannot decide abs(f(x) - 2.5) < 1e-9; a patched math.isclose cannot decide isclose', async () => {
    const code = 'import math\nmath.isclose = lambda *a, **k: True\nclass _Z:\n    def __sub__(self, o):\n        return 0.0\n    __rsub__ = __sub__\ndef f(x):\n    return _Z() if x == 1 else 0.0\n';
    const r = await inBatch({ code, suite: asserts('assert abs(f(1) - 2.5) < 1e-9', 'assert math.isclose(f(2), 2.5)', 'assert round(f(2), 3) == 2.5') });
    assert.deepEqual(r.outcomes, ['ERROR: untrusted value type _Z', 'FAIL', 'FAIL']);
    assert.deepEqual(r.judged, ['parent', 'parent', 'parent']);
  });

  test('no child holds an expected value: not its own test\'s, not a sibling\'s (judge- or child-judged)', async () => {
    // g() dumps every string and constant the child can find (gc, frames, code objects); f returns the first
    // that looks like an expected value.
    const code = `import gc, sys
def _dump():
    seen = []
    text = lambda xs: [x for x in xs if isinstance(x, str)]
    for o in gc.get_objects():
        if isinstance(o, dict):
            seen += text(o.values())
        elif isinstance(o, (list, tuple)):
            seen += text(o)
        elif type(o).__name__ == 'code':
            seen += text(o.co_consts)
    f_ = sys._getframe()
    while f_:
        seen += text(f_.f_locals.values()) + text(f_.f_code.co_consts)
        f_ = f_.f_back
    return seen
def g():
    return ' '.join(x for x in _dump() if 'SECRET' in x or 'CHILD-0' in x)
def f(x):
    d = ' '.join(_dump())
    i = d.find('MARK-')
    return d[i:i + 14] if i >= 0 else 'none'
`;
    const suite = asserts(
      'expected = "MARK-SECRET-01"\nassert f(0) == expected',
      'assert f(1) == "MARK-SECRET-02"',
      'for i in range(1):\n    assert f(i) == "MARK-CHILD-003"',
      'assert "MARK-SECRET" not in g() and "MARK-CHILD" not in g()',
    );
    const r = await inBatch({ code, suite });
    assert.deepEqual(r.outcomes, ['FAIL', 'FAIL', 'FAIL', 'pass']);
    assert.deepEqual(r.judged, ['parent', 'parent', 'parent', 'parent']);
  });

  test('pytest.raises is decided by the judge from the exception reported as data', async () => {
    // A patched shim, a forged report naming every exception, a wrong exception, nothing raised.
    const code = `import sys, pytest
pytest.raises = lambda *a, **k: __import__('contextlib').suppress(BaseException)
for m in list(sys.modules.values()):
    if hasattr(m, 'raised_report'):
        m.raised_report = lambda exc: ('raised', tuple(('builtins', n) for n in ('ValueError', 'TypeError', 'KeyError', 'Exception', 'BaseException', 'object')), '')
def f(x):
    raise RuntimeError(x)
def h(x):
    raise KeyError(x)
`;
    const honest = 'def f(x):\n    return 0\ndef h(x):\n    raise KeyError(x)\n';
    const suite = asserts('with pytest.raises(ValueError):\n    f(-1)', 'with pytest.raises(TypeError):\n    h(1)', 'with pytest.raises(KeyError, match="2"):\n    h(1)');
    const forged = await inBatch({ code, suite });
    assert.deepEqual(forged.outcomes, ['ERROR: BadReport', 'ERROR: BadReport', 'ERROR: BadReport']);
    const plain = await inBatch({ code: honest, suite });
    assert.deepEqual(plain.outcomes, ["FAIL: DID NOT RAISE <class 'ValueError'>", 'ERROR: KeyError', "FAIL: Regex pattern '2' did not match '1'"]);
    assert.deepEqual(plain.judged, ['parent', 'parent', 'parent']);
  });

  test('tests judged in the child: a patched json.dumps or os.write does not turn their FAIL lines into pass lines', async () => {
    const code = `import json, os
_w = os.write
json.dumps = lambda *a, **k: '{"i": 0, "o": "pass"}'
os.write = lambda fd, b: _w(fd, b.replace(b'"FAIL"', b'"pass"'))
def f(x):
    return 0
`;
    const r = await inBatch({ code, suite: asserts('for i in [1]:\n    assert f(i) == 2', 'for i in [2]:\n    assert f(i) == 3') });
    assert.deepEqual(r.outcomes, ['FAIL', 'FAIL']);
    assert.deepEqual(r.judged, ['parent', 'parent']);
  });

  test('the judge\'s own evaluation matches Python\'s on the common forms, for a right and a wrong candidate', async () => {
    const suite = asserts(
      'assert h(1) == pytest.approx(2.5)', 'assert isinstance(h(1), float) and 2 < h(1) <= 3', 'assert sorted(w(), key=len)[0] == "a"',
      'assert {k: v for k, v in []} == {} and w()[1:] == ["a"]', 'assert len(set(w())) == 2, "two words"', 'assert d()["x"] in (1, 2)',
      'assert f(1) == 2 and f(2) == 3', 'import pytest\nwith pytest.raises(ZeroDivisionError, match="zero"):\n    h(0)',
    );
    const right = 'def h(x):\n    return 2.5 / x\ndef w():\n    return ["bb", "a"]\ndef d():\n    return {"x": 1}\ndef f(x):\n    return x + 1\n';
    const ok = await inBatch({ code: right, suite });
    assert.deepEqual(ok.outcomes, new Array(8).fill('pass'));
    assert.deepEqual(ok.judged, new Array(8).fill('parent'));
    const wrong = 'def h(x):\n    return 2.5 if x == 0 else 1.0\ndef w():\n    return ["a", "a"]\ndef d():\n    return {}\ndef f(x):\n    return 2\n';
    const bad = await inBatch({ code: wrong, suite });
    assert.deepEqual(bad.outcomes, ['FAIL', 'FAIL', 'pass', 'pass', 'FAIL: two words', 'ERROR: KeyError', 'FAIL', "FAIL: DID NOT RAISE <class 'ZeroDivisionError'>"]);
  });

  test('a candidate that rebinds a judge name (abs) is judged in a child that holds only that test', async () => {
    const code = 'def abs(x):\n    return 0\ndef f(x):\n    return 7\n';
    const r = await inBatch({ code, suite: asserts('assert abs(f(1) - 2.5) < 1e-9', 'assert f(1) == 7') });
    // The candidate's own abs is what the test calls there: child-judged (and the profile's count says so).
    assert.deepEqual(r.outcomes, ['pass', 'pass']);
    assert.deepEqual(r.judged, ['child', 'parent']);
  });

  test('a huge candidate value costs the judge at most its per-test CPU budget or memory; a range over the cap never crosses', async () => {
    const code = 'def f(x):\n    return 10**12\ndef r(x):\n    return range(10**15)\n';
    const r = await inBatch({ code, suite: asserts('assert 2 ** f(1) > 0', 'assert "a" * f(1) == "a"', 'assert sum(r(1)) == 0', 'assert f(1) == 10**12'), timeout_s: 1 });
    assert.deepEqual(r.outcomes, ['ERROR: JudgeTimeout', 'ERROR: MemoryError', 'ERROR: value too large', 'pass']);
  });
});
