/**
 * The oracle's boundary by construction (issue 36): the suite runs in a judge child that never loads the candidate;
 * the candidate is a remote function in a child of its own namespaces. One test per attack class of the issue, each
 * a wrong (or hostile) canonical in a batch with good suites whose verdicts must not change. Needs what CI has:
 * root on a kernel with Landlock, seccomp and namespaces.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { SandboxPool } from '../../activities/exec/pool.ts';
import { astFacts } from '../../activities/python/astFacts.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';
import type { ExecRequest, ExecResult, TestSuite } from '../../schemas/exec.ts';
import { myChildren, processesOfUid, sandboxUid, sleep } from './support.ts';

const asserts = (...tests: string[]): TestSuite => ({ kind: 'asserts', tests });
// Expected values built with calls no judge list ever held: the stdlib the test imports, builtins, str methods.
const STDLIB_TESTS = asserts(
  'import math\nassert comb2(5) == math.comb(5, 2)',
  'assert to_bin(10) == bin(10)[2:]',
  "assert up('abc') == 'abc'.upper()",
  "from collections import Counter\nassert count('hello') == Counter('hello')",
  'import operator\nassert mul(3, 4) == operator.mul(3, 4)',
);
const RIGHT = `import math, operator
from collections import Counter
def comb2(n):
    return n * (n - 1) // 2
def to_bin(n):
    return format(n, 'b')
def up(s):
    return s.upper()
def count(s):
    return Counter(s)
def mul(a, b):
    return a * b
`;
const GOOD: ExecRequest = { code: RIGHT, suite: STDLIB_TESTS };

describe('the suite runs where the candidate cannot reach (issue 36)', () => {
  let oracle: Oracle;
  before(async () => {
    oracle = await openOracle({ cachePath: null, concurrency: 2 });
  });
  after(async () => oracle.close());

  async function inBatch(attack: ExecRequest): Promise<ExecResult> {
    const [a, r, b] = await oracle.runMany([GOOD, attack, { ...GOOD, code: GOOD.code + '\n' }]);
    for (const good of [a, b]) {
      assert.deepEqual(good.outcomes, new Array(5).fill('pass'), 'good suite');
      assert.deepEqual(good.judged, new Array(5).fill('parent'));
    }
    assert.equal(r.infra_error, undefined);
    return r;
  }

  test('expected values: patched builtins, math.comb, operator.mul, sys.modules, a type dict rewritten through gc and ctypes', async () => {
    const code = `import builtins, ctypes, gc, math, operator, sys, types
math.comb = lambda *a: 0
operator.mul = lambda a, b: 0
builtins.bin = lambda x: '0b0'
fake = types.ModuleType('collections')
fake.Counter = lambda *a: {}
sys.modules['collections'] = fake
gc.get_referents(str.__dict__)[0]['upper'] = lambda s: 'WRONG'
ctypes.pythonapi.PyType_Modified(ctypes.py_object(str))
def comb2(n):
    return 0
def to_bin(n):
    return '0'
def up(s):
    return 'abc'.upper()
def count(s):
    return {}
def mul(a, b):
    return 0
`;
    const r = await inBatch({ code, suite: STDLIB_TESTS });
    assert.deepEqual(r.outcomes, new Array(5).fill('FAIL'));
    assert.deepEqual(r.judged, new Array(5).fill('parent'));
  });

  test('a candidate rebinding a judge name: `abs = abs` changes nothing; its own abs answers only for itself, counted child-judged', async () => {
    const rebind = 'abs = abs\nimport math as m\nfrom collections import Counter\ndef f(x):\n    return x - 3\n';
    const suite = asserts('assert abs(f(5)) == 2', 'assert m.comb(4, 2) == 6 and Counter("aa")["a"] == 2', 'assert f(1) == -2');
    const same = await inBatch({ code: rebind, suite });
    assert.deepEqual([same.outcomes, same.judged], [['pass', 'pass', 'pass'], ['parent', 'parent', 'parent']]);
    const own = await inBatch({ code: 'def abs(x):\n    return 2\ndef f(x):\n    return 0\n', suite: asserts('assert abs(f(5)) == 2', 'assert f(5) == 2') });
    assert.deepEqual([own.outcomes, own.judged], [['pass', 'FAIL'], ['child', 'parent']]);
  });

  test('a returned range(9_999_999) in ten set(f(x)) tests fails fast in the candidate\'s child; a generator is materialised and bounded', async () => {
    const code = 'def f(x):\n    return range(9_999_999)\ndef g(x):\n    return (i for i in range(x))\ndef forever(x):\n    while True:\n        yield x\n';
    const tests = [...Array.from({ length: 10 }, (_, i) => `assert set(f(${i})) == {1}`), 'assert list(g(3)) == [0, 1, 2]', 'assert list(forever(1)) == [1]'];
    const t0 = performance.now();
    const r = await inBatch({ code, suite: asserts(...tests), timeout_s: 2 });
    assert.deepEqual(r.outcomes, [...new Array(10).fill('ERROR: value too large'), 'pass', 'ERROR: value too large']);
    assert.ok(performance.now() - t0 < 20_000, 'bounded by the candidate\'s own limits');
  });

  test('a canonical of 4 MB is refused before any parse or send, in the oracle and in the gate\'s AST stage', async () => {
    const big = `def f(x):\n    return x\n# ${'x'.repeat(4 * 1024 * 1024)}\n`;
    const t0 = performance.now();
    const r = await inBatch({ code: big, suite: asserts('assert f(1) == 1') });
    assert.deepEqual(r.outcomes, ['ERROR: CodeTooLarge']);
    const facts = await astFacts([{ id: 'big', kind: 'code', code: big }, { id: 'small', kind: 'code', code: 'def f(x):\n    return x\n' }]);
    assert.match(String((facts.get('big') as { syntax_error: string }).syntax_error), /over the 1048576 cap: not parsed/);
    assert.equal((facts.get('small') as { parses: boolean }).parses, true);
    assert.ok(performance.now() - t0 < 10_000);
  });

  test('signals the candidate brings on itself: a POSIX timer or F_SETSIG with SIGKILL are refused; its own SIGALRM is its outcome, not a fault', async () => {
    const code = `import ctypes, fcntl, os, signal, struct, time
libc = ctypes.CDLL(None, use_errno=True)
def timer(x):
    ev = ctypes.create_string_buffer(64)
    struct.pack_into('=qii', ev, 0, 0, signal.SIGKILL, 0)  # sigev_value, sigev_signo, SIGEV_SIGNAL
    tid = ctypes.c_void_p()
    if libc.timer_create(1, ev, ctypes.byref(tid)) == 0:
        libc.timer_settime(tid, 0, struct.pack('=qqqq', 0, 0, 0, 1000000), None)
        time.sleep(1)
    return ctypes.get_errno()
def setsig(x):
    r, w = os.pipe()
    fcntl.fcntl(r, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(r, 10, signal.SIGKILL)  # F_SETSIG
    return 0
def alarm(x):
    signal.setitimer(signal.ITIMER_REAL, 0.01)
    time.sleep(1)
`;
    const r = await inBatch({ code, suite: asserts('assert timer(1) == 0', 'assert setsig(1) == 1', 'assert alarm(1) is None'), timeout_s: 2 });
    assert.deepEqual(r.outcomes, ['FAIL', 'ERROR: PermissionError', 'ERROR: Signal(SIGALRM)']);
  });

  test('System V shared memory and message queues: nothing reaches the next suite or the host', async () => {
    // A host queue with a token (key 0x36360036), made by another process; the candidate looks for it and leaves its
    // own segment and queue under keys the next suite looks for.
    const host = spawnSync(pythonExecutable(), ['-c', `
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
q = libc.msgget(0x36360036, 0o1666)
msg = struct.pack('=q', 1) + b'HOSTTOKEN'
assert libc.msgsnd(q, msg, 9, 0) == 0, ctypes.get_errno()
print(q)
`], { encoding: 'utf8' });
    assert.equal(host.status, 0, host.stderr);
    const qid = Number(host.stdout.trim());
    try {
      const code = `import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def host(x):
    return libc.msgget(0x36360036, 0)
def leave(x):
    shm = libc.shmget(0x36360037, 4096, 0o1666)
    q = libc.msgget(0x36360038, 0o1666)
    return shm >= 0 and q >= 0
def find(x):
    return [libc.shmget(0x36360037, 0, 0), libc.msgget(0x36360038, 0)]
`;
      const [leave, find] = await oracle.runMany([
        { code, suite: asserts('assert host(1) == -1', 'assert leave(1)') },
        { code, suite: asserts('assert find(1) == [-1, -1]') },
      ]);
      assert.deepEqual([leave.outcomes, find.outcomes], [['pass', 'pass'], ['pass']]);
      const ipcs = spawnSync(pythonExecutable(), ['-c', 'import ctypes\nl = ctypes.CDLL(None)\nprint(l.shmget(0x36360037, 0, 0), l.msgget(0x36360038, 0))'], { encoding: 'utf8' });
      assert.equal(ipcs.stdout.trim(), '-1 -1', 'nothing left on the host');
    } finally {
      spawnSync(pythonExecutable(), ['-c', `import ctypes\nctypes.CDLL(None).msgctl(${qid}, 0, None)`]);
    }
  });

  test('a check program writing through every inherited descriptor decides nothing: its suite fails, neighbours and host unchanged', async () => {
    const program = `import os
def check(candidate):
    for fd in range(0, 64):
        for line in (b'{"i": 0, "o": "pass", "j": "parent"}\\n', b'{"done": true}\\n', b'\\x00\\x00\\x00\\x02{}'):
            try:
                os.write(fd, line)
            except OSError:
                pass
    assert candidate(1) == 3
`;
    const r = await inBatch({ code: 'def f(x):\n    return 2\n', suite: { kind: 'check', program, entry_point: 'f' } });
    assert.equal(r.passed, false);
    assert.match(r.outcomes[0], /^ERROR: Judge/);
  });
});

describe('the judge is sandboxed too: what a test does to it is its suite\'s failure', () => {
  test('a test spinning in the judge, one exhausting its memory, one ending it: those tests or that suite fail; neighbours and later suites do not', async () => {
    const oracle = await openOracle({ cachePath: null, concurrency: 1 });
    try {
      const code = 'def f(x):\n    return x + 1\n';
      const [spin, exit, after] = await oracle.runMany([
        { code, suite: asserts('while True:\n    pass', 'x = bytearray(8 * 1024**3)', 'assert f(1) == 2'), timeout_s: 1 },
        { code, suite: asserts('assert f(1) == 2', 'import os\nos._exit(0)') },
        { code, suite: asserts('assert f(1) == 2') },
      ]);
      assert.deepEqual(spin.outcomes, ['ERROR: JudgeTimeout', 'ERROR: MemoryError', 'pass']);
      assert.equal(spin.infra_error, undefined);
      assert.deepEqual(exit.outcomes, ['ERROR: JudgeExited(0) before its last line', 'ERROR: JudgeExited(0) before its last line']);
      assert.equal(exit.infra_error, undefined);
      assert.deepEqual(after.outcomes, ['pass']);
    } finally {
      await oracle.close();
    }
  });

  test('the zygotes hold no more descriptors after 24 suites than after 4 (a leak stopped the server after 500)', async () => {
    const pool = new SandboxPool(1);
    try {
      const suite: TestSuite = asserts('assert f(1) == 2', 'assert f(2) == 3');
      const run = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => pool.run(`def f(x):\n    return x + 1 + ${i} * 0\n`, suite, 2, 5)));
      await run(4);
      const server = pool.serverIn(0)!.pid!;
      const zygotes = readdirSync('/proc').filter((p) => /^\d+$/.test(p) && readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(server));
      assert.equal(zygotes.length, 2);
      const fds = () => zygotes.map((z) => readdirSync(`/proc/${z}/fd`).length);
      const before = fds();
      await run(20);
      assert.deepEqual(fds(), before);
    } finally {
      await pool.close();
    }
  });
});

describe('the candidate\'s child cannot outlive its server (PID namespace)', () => {
  test('a child that cleared its parent-death signal dies with the fork server (as when validate is stopped by Ctrl-C)', async () => {
    const pool = new SandboxPool(1);
    try {
      const code = 'import ctypes\nctypes.CDLL(None).prctl(1, 0, 0, 0, 0)\ndef f(x):\n    while True:\n        pass\n';
      const running = pool.run(code, { kind: 'asserts', tests: ['assert f(1)'] }, 1, 30);
      let children: number[] = [];
      for (let i = 0; i < 200 && children.length === 0; i++) {
        await sleep(50);
        children = myChildren();
      }
      assert.ok(children.length > 0, 'the candidate child is running');
      const server = pool.serverIn(0)!;
      const uid = sandboxUid(server.pid!);
      process.kill(server.pid!, 'SIGKILL');
      const r = await running;
      assert.ok(r.infraError, 'the run reports the server\'s death');
      let left = processesOfUid(uid);
      for (let i = 0; i < 100 && left.length; i++) {
        await sleep(50);
        left = processesOfUid(uid);
      }
      assert.deepEqual(left, [], 'no child of the dead server is left');
    } finally {
      await pool.close();
    }
  });
});
