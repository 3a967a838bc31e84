import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import type { TestSuite } from '../../schemas/exec.ts';

const asserts = (...tests: string[]): TestSuite => ({ kind: 'asserts', tests });

describe('sandbox: outcome categories and hostile inputs', () => {
  let oracle: Oracle;
  before(async () => {
    oracle = await openOracle({ cachePath: null, concurrency: 2 });
  });
  after(async () => oracle.close());

  const F = 'def f(x):\n    return x + 1\n';

  test('pass, bare FAIL, FAIL with message, ERROR with type', async () => {
    const r = await oracle.run({ code: F, suite: asserts('assert f(1) == 2', 'assert f(1) == 3', 'assert f(1) == 3, "off"', 'f("a")') });
    assert.deepEqual(r.outcomes, ['pass', 'FAIL', 'FAIL: off', 'ERROR: TypeError']);
    assert.equal(r.passed, false);
    assert.ok(r.wall_ms > 0);
  });

  test('each test gets a fresh namespace; setup runs after the code, with the candidate\'s names', async () => {
    const code = 'STATE = []\ndef f(x):\n    STATE.append(x)\n    return len(STATE)\n';
    const suite: TestSuite = { kind: 'asserts', tests: ['assert f(1) == 1', 'assert g(1) == 10 and f(1) == 2'], setup: 'def g(x):\n    return f(x) * 10' };
    assert.deepEqual((await oracle.run({ code, suite })).outcomes, ['pass', 'pass']);
  });

  test('check(candidate) programs and the pytest.raises shim', async () => {
    const program = 'import pytest\ndef check(candidate):\n    assert candidate(1) == 2\n    with pytest.raises(TypeError):\n        candidate(None)\n';
    const ok = await oracle.run({ code: F, suite: { kind: 'check', program, entry_point: 'f' } });
    assert.deepEqual(ok.outcomes, ['pass']);
    const bad = await oracle.run({ code: 'def f(x):\n    return 2\n', suite: { kind: 'check', program, entry_point: 'f' } });
    assert.deepEqual(bad.outcomes, ['FAIL: DID NOT RAISE <class \'TypeError\'>']);
  });

  const hostile: [string, string, TestSuite, (o: string[]) => void][] = [
    ['infinite loop', 'def f(x):\n    while True:\n        pass\n', asserts('assert f(1)', 'assert True'), (o) => assert.deepEqual(o, ['TIMEOUT', 'TIMEOUT'])],
    ['memory bomb', 'def f(x):\n    return bytearray(50 * 1024**3)\n', asserts('assert f(1)'), (o) => assert.deepEqual(o, ['ERROR: MemoryError'])],
    ['fork bomb', 'import os\ndef f(x):\n    while True:\n        os.fork()\n', asserts('assert f(1)'), (o) => assert.match(o[0], /^ERROR: /)],
    ['fork bomb through ctypes (libc fork fails: process limit)', 'import ctypes\ndef f(x):\n    return ctypes.CDLL(None).fork()\n', asserts('assert f(1) == -1'), (o) => assert.deepEqual(o, ['pass'])],
    ['thread creation', 'import threading\ndef f(x):\n    threading.Thread(target=print).start()\n', asserts('f(1)'), (o) => assert.deepEqual(o, ['ERROR: RuntimeError'])],
    ['recursion bomb', 'def f(x):\n    return f(x)\n', asserts('assert f(1)'), (o) => assert.deepEqual(o, ['ERROR: RecursionError'])],
    ['stdout flood', 'import os\ndef f(x):\n    print("y" * 10**7)\n    os.write(1, b"z" * 10**6)\n    return x\n', asserts('assert f(1) == 1'), (o) => assert.deepEqual(o, ['pass'])],
    // The tests after the one the candidate's child died in get its outcome too (one child per suite).
    ['os._exit mid-suite', 'import os\ndef f(x):\n    if x:\n        os._exit(3)\n    return x\n', asserts('assert f(0) == 0', 'assert f(1) == 1', 'assert f(0) == 0', 'f(0)'), (o) => assert.deepEqual(o, ['pass', 'ERROR: Exited(3)', 'ERROR: Exited(3)', 'ERROR: Exited(3)'])],
    ['sys.exit', 'import sys\ndef f(x):\n    sys.exit(0)\n', asserts('f(1)', 'assert True'), (o) => assert.deepEqual(o, ['ERROR: SystemExit', 'pass'])],
    ['BaseException and KeyboardInterrupt', 'def f(x):\n    raise (BaseException if x else KeyboardInterrupt)()\n', asserts('f(1)', 'f(0)'), (o) => assert.deepEqual(o, ['ERROR: BaseException', 'ERROR: KeyboardInterrupt'])],
    ['segfault through ctypes', 'import ctypes\ndef f(x):\n    return ctypes.string_at(0)\n', asserts('assert f(1)', 'assert True'), (o) => assert.deepEqual(o, ['ERROR: Signal(SIGSEGV)', 'ERROR: Signal(SIGSEGV)'])],
    ['socket connect', 'import socket\ndef f(x):\n    socket.create_connection(("127.0.0.1", 1), timeout=1)\n', asserts('f(1)'), (o) => assert.deepEqual(o, ['ERROR: PermissionError'])],
    ['syntax error', 'def f(x) return x\n', asserts('assert f(1)', 'assert f(2)'), (o) => assert.deepEqual(o, ['ERROR: SyntaxError', 'ERROR: SyntaxError'])],
    ['invalid UTF-8 (lone surrogate)', 'def f(x):\n    return "\udcff"\n', asserts('assert f(1)'), (o) => assert.deepEqual(o, ['ERROR: UnicodeEncodeError'])],
    ['null byte in source', 'def f(x):\n    return 1\x00\n', asserts('assert f(1)'), (o) => assert.match(o[0], /^ERROR: (SyntaxError|ValueError)$/)],
  ];
  for (const [name, code, suite, check] of hostile) {
    test(`hostile: ${name}`, async () => {
      const r = await oracle.run({ code, suite, timeout_s: 2 });
      check(r.outcomes);
    });
  }

  test('hostile: writing outside the scratch directory is refused, inside is allowed', async () => {
    const target = `/tmp/execretrieval-escape-${process.pid}`;
    rmSync(target, { force: true });
    const code = `import os\ndef f(p):\n    with open(p, "w") as fh:\n        fh.write("x")\n    return open(p).read()\n`;
    const r = await oracle.run({ code, suite: asserts(`assert f(${JSON.stringify(target)}) == "x"`, 'assert f("inside.txt") == "x"', 'f("/etc/execretrieval-escape")') });
    // With the read-only view the child's /tmp is its own private tmpfs (the write lands there, not on the host);
    // without it, the audit hook and Landlock refuse the write.
    const view = (await oracle.layers!()).private_tmp === true;
    assert.deepEqual(r.outcomes, [view ? 'pass' : 'ERROR: PermissionError', 'pass', 'ERROR: PermissionError']);
    assert.equal(existsSync(target), false);
    assert.equal(existsSync('/etc/execretrieval-escape'), false);
  });

  test('hostile: 5 MB of code is categorised, not fatal', async () => {
    const code = '# ' + 'x'.repeat(5 * 1024 * 1024) + '\n' + F;
    const r = await oracle.run({ code, suite: asserts('assert f(1) == 2') });
    assert.equal(r.outcomes.length, 1);
    assert.match(r.outcomes[0], /^(pass|TIMEOUT|ERROR: .+)$/);
  });

  test('the runner keeps serving after every hostile input', async () => {
    const rs = await oracle.runMany([1, 2, 3, 4].map((n) => ({ code: F, suite: asserts(`assert f(${n}) == ${n + 1}`) })));
    assert.deepEqual(rs.map((r) => r.outcomes), [['pass'], ['pass'], ['pass'], ['pass']]);
  });
});
