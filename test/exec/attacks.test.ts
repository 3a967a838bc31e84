/**
 * One test per attack of issue 11, run as a hostile candidate would. Each asserts the attack's exact outcome
 * and that good suites in the same batch are unaffected. Needs what CI has: root on a kernel with Landlock.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';
import { stateDir } from '../../activities/paths.ts';
import type { ExecRequest, ExecResult, TestSuite } from '../../schemas/exec.ts';
import { myChildren, myJudges, processesOfUid, sandboxUid, sleep } from './support.ts';

const asserts = (...tests: string[]): TestSuite => ({ kind: 'asserts', tests });
const GOOD: ExecRequest = { code: 'def g(x):\n    return x * 2\n', suite: asserts('assert g(2) == 4', 'assert g(3) == 6') };
const SLOW_GOOD: ExecRequest = { code: 'import time\ndef g(x):\n    time.sleep(0.8)\n    return x * 2\n', suite: asserts('assert g(2) == 4', 'assert g(3) == 6') };
// The wrong canonical every verdict attack wraps: f returns 0, the tests want x + 1.
const WRONG_TESTS = asserts('assert f(1) == 2', 'assert f(2) == 3');
const tag = `${process.pid}`;
const prefix = spawnSync(pythonExecutable(), ['-I', '-c', 'import sys; print(sys.prefix)'], { encoding: 'utf8' }).stdout.trim();

/** Runs [good, attack, good] as one batch; asserts the good ones pass and returns the attack's result. */
async function inBatch(oracle: Oracle, attack: ExecRequest, good: ExecRequest = GOOD): Promise<ExecResult> {
  const [a, r, b] = await oracle.runMany([good, attack, { ...good, code: good.code + '\n' }]);
  assert.deepEqual(a.outcomes, ['pass', 'pass'], 'good suite before the attack');
  assert.deepEqual(b.outcomes, ['pass', 'pass'], 'good suite after the attack');
  assert.equal(r.infra_error, undefined);
  return r;
}

describe('sandbox attacks (issue 11)', () => {
  let oracle: Oracle;
  before(async () => {
    oracle = await openOracle({ cachePath: null, concurrency: 3 });
  });
  after(async () => oracle.close());

  test('every layer is in force here (root, Landlock ABI >= 6)', async () => {
    const l = await oracle.layers!();
    assert.equal(l.view, true, `view: ${l.view_error}`);
    assert.equal(l.private_tmp, true);
    assert.equal(l.netns, true);
    assert.equal(l.landlock, true);
    assert.ok((l.landlock_abi ?? 0) >= 6);
    assert.equal(l.seccomp, true);
    assert.deepEqual(l.caps_kept, []);
    assert.ok((l.uid ?? 0) >= 0x10000000);
  });

  // ---------------------------------------------------------------- it cannot make itself pass
  test('verdict 1: pass lines forged on every inherited fd are refused (ERROR: BadReport)', async () => {
    const code = 'import os\nfor fd in range(3, 64):\n    for i in range(2):\n        try:\n            os.write(fd, (\'{"i": %d, "o": "pass"}\\n\' % i).encode())\n        except OSError:\n            pass\ndef f(x):\n    return 0\n';
    const r = await inBatch(oracle, { code, suite: WRONG_TESTS });
    assert.deepEqual(r.outcomes, ['ERROR: BadReport', 'ERROR: BadReport']);
    assert.deepEqual(r.judged, ['parent', 'parent']);
  });

  test('verdict 2: replacing the runner\'s functions through sys.modules changes nothing the judge believes', async () => {
    const code = "import sys\nfor m in list(sys.modules.values()):\n    for name in ('_classify', 'classify', 'judge', 'judge_report', '_value_line', 'decode', 'encode', 'raised_report', 'run_whole'):\n        if hasattr(m, name):\n            try:\n                setattr(m, name, lambda *a, **k: 'pass')\n            except Exception:\n                pass\ndef f(x):\n    raise ValueError(x)\n";
    const r = await inBatch(oracle, { code, suite: WRONG_TESTS });
    // The candidate's process holds no judge: what it patches there only changes its own (malformed) answers.
    for (const o of r.outcomes) assert.match(o, /^ERROR: /);
  });

  test('verdict 3: an object whose __eq__ always returns True is an untrusted type, also as an int subclass', async () => {
    const code = 'class _A:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\nclass _B(int):\n    def __eq__(self, other):\n        return True\ndef f(x):\n    return _A() if x == 1 else _B(0)\n';
    const r = await inBatch(oracle, { code, suite: WRONG_TESTS });
    assert.deepEqual(r.outcomes, ['ERROR: untrusted value type _A', 'ERROR: untrusted value type _B']);
  });

  test('verdict 4: the expected values cannot be found in memory (gc.get_objects)', async () => {
    const code = "import gc, ast\ndef f(x):\n    for o in gc.get_objects():\n        vals = list(o.values()) if isinstance(o, dict) else list(o) if isinstance(o, (list, tuple)) else []\n        for v in vals:\n            if isinstance(v, str) and '==' in v and ('f(%d)' % x) in v:\n                return ast.literal_eval(v.split('==', 1)[1].strip())\n    return 0\n";
    const r = await inBatch(oracle, { code, suite: WRONG_TESTS });
    assert.deepEqual(r.outcomes, ['FAIL', 'FAIL']);
  });

  test('verdict 5: a patched builtin used by later tests of the suite cannot make them pass', async () => {
    const code = 'import builtins\nclass _Eq(list):\n    def __eq__(self, other):\n        return True\nbuiltins.sorted = lambda *a, **k: _Eq()\nbuiltins.set = lambda *a, **k: _Eq()\ndef f(x):\n    return [0]\n';
    const r = await inBatch(oracle, { code, suite: asserts('assert sorted(f(1)) == [1, 2]', 'assert set(f(2)) == {2, 3}') });
    // sorted and set are the judge's own (issue 25): the child only returns f's [0].
    assert.deepEqual(r.outcomes, ['FAIL', 'FAIL']);
    assert.deepEqual(r.judged, ['parent', 'parent']);
    // Patching what the candidate's runner uses only breaks its answers: the suite fails, it does not pass.
    const broken = await inBatch(oracle, { code: 'import builtins\nbuiltins.isinstance = lambda *a: True\ndef f(x):\n    return 0\n', suite: WRONG_TESTS });
    for (const o of broken.outcomes) assert.match(o, /^ERROR: /);
  });

  test('a correct candidate is still judged pass, by the parent, for every MBPP-style form', async () => {
    const code = 'def f(x):\n    return x + 1\ndef h(x):\n    return None if x else {"a": (1, 2.5), "b": {3, 4}, "c": b"z", "d": frozenset([1]), "e": 2j, "f": -0.5}\nclass K:\n    pass\ndef k():\n    return K()\n';
    // Identity with None and truth tests need no data: an object of any type crosses as an opaque one there.
    const suite = asserts('assert k() is not None', 'assert k()', 'assert f(1) == 2', 'assert 3 == f(2)', 'assert f(1) != 5', 'assert h(1) is None', 'assert h(0) == {"a": (1, 2.5), "b": {3, 4}, "c": b"z", "d": {1}, "e": 2j, "f": -0.5}', 'assert f(0)', 'assert not h(1)', 'assert f(1) in [2, 3]', 'assert f(1) < 3, "msg"', 'x = f(1)\nassert x == 2');
    const r = await oracle.run({ code, suite });
    assert.deepEqual(r.outcomes, new Array(12).fill('pass'));
    assert.deepEqual(r.judged, new Array(12).fill('parent')); // the last binds f(1) in the child, compares in the judge
    const bad = await oracle.run({ code: 'def f(x):\n    return x\n', suite: asserts('assert f(1) == 2, "off by one"', 'assert f(1) < "a"', 'assert f(None) is not None', 'assert f(object()) == 1') });
    // object() cannot cross as data: that test runs whole in the candidate's child, after the others, and says so.
    assert.deepEqual(bad.outcomes, ['FAIL: off by one', 'ERROR: TypeError', 'FAIL', 'FAIL']);
    assert.deepEqual(bad.judged, ['parent', 'parent', 'parent', 'child']);
  });

  // ---------------------------------------------------------------- it cannot reach the host
  test('host 1: writes outside scratch through dir_fd, mkfifo, rename/remove and ctypes all fail; nothing appears', async () => {
    const code = `import os, ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
def attempt(fn):
    try:
        r = fn()
    except OSError:
        return 'denied'
    return 'denied' if r == -1 else 'ok'
def f(tag):
    root = os.open('/', os.O_PATH)
    pfd = os.open(sys.prefix, os.O_PATH)
    return [
        attempt(lambda: os.open('er-' + tag, os.O_WRONLY | os.O_CREAT, dir_fd=pfd)),
        attempt(lambda: os.mkdir('er-' + tag, dir_fd=root)),
        attempt(lambda: os.mkfifo(sys.prefix + '/er-fifo-' + tag)),
        attempt(lambda: libc.open((sys.prefix + '/er-c-' + tag).encode(), 0o101, 0o644)),
        attempt(lambda: libc.mkdir(('/var/tmp/er-' + tag).encode(), 0o755)),
        attempt(lambda: os.rename('localtime', 'er-' + tag, src_dir_fd=os.open('/etc', os.O_PATH), dst_dir_fd=root)),
        attempt(lambda: libc.unlink(b'/dev/null')),
        attempt(lambda: libc.rename(b'/etc/ld.so.cache', b'/tmp/stolen')),
    ]
`;
    const r = await inBatch(oracle, { code, suite: asserts(`assert f(${JSON.stringify(tag)}) == ['denied'] * 8`) });
    assert.deepEqual(r.outcomes, ['pass']);
    for (const p of [`${prefix}/er-${tag}`, `/er-${tag}`, `${prefix}/er-fifo-${tag}`, `${prefix}/er-c-${tag}`, `/var/tmp/er-${tag}`]) assert.equal(existsSync(p), false, p);
    assert.ok(statSync('/dev/null').isCharacterDevice());
    assert.ok(existsSync('/etc/ld.so.cache'));
  });

  test('host 2: /tmp and /dev/shm are private to the child: its files never reach the host', async () => {
    const code = "import os, ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\ndef f(tag):\n    ok = [libc.open(p.encode(), 0o101, 0o644) >= 0 for p in ('/tmp/er-' + tag, '/dev/shm/er-' + tag)]\n    os.mkfifo('/tmp/er-fifo-' + tag)\n    return ok\n";
    const r = await inBatch(oracle, { code, suite: asserts(`assert f(${JSON.stringify(tag)}) == [True, True]`) });
    assert.deepEqual(r.outcomes, ['pass']);
    for (const p of [`/tmp/er-${tag}`, `/dev/shm/er-${tag}`, `/tmp/er-fifo-${tag}`]) assert.equal(existsSync(p), false, p);
  });

  test('host 3: a root-only secret cannot be read, so it appears in no outcome', async () => {
    const dir = mkdtempSync(join(stateDir(), 'secret-'));
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, `TOPSECRET-${tag}`, { mode: 0o600 });
    try {
      const code = "import ctypes\ndef f(p):\n    try:\n        return open(p).read()\n    except OSError:\n        libc = ctypes.CDLL(None)\n        fd = libc.open(p.encode(), 0)\n        if fd < 0:\n            raise\n        buf = ctypes.create_string_buffer(100)\n        libc.read(fd, buf, 100)\n        return buf.value.decode()\n";
      const p = JSON.stringify(secret);
      const r = await inBatch(oracle, { code, suite: asserts(`assert f(${p}) == 1`, `assert f(${p}) == 1, f(${p})`, `assert False, open(${p}).read()`) });
      assert.deepEqual(r.outcomes, ['ERROR: FileNotFoundError', 'ERROR: FileNotFoundError', 'ERROR: FileNotFoundError']);
      assert.ok(!JSON.stringify(r).includes('TOPSECRET'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('host 4: unix path and abstract sockets of local services cannot be reached', async () => {
    const path = join(tmpdir(), `er-sock-${tag}`);
    rmSync(path, { force: true });
    let connections = 0;
    const listen = (addr: string) => new Promise<Server>((resolve) => {
      const s = createServer(() => { connections++; });
      s.listen(addr, () => resolve(s));
    });
    const servers = [await listen(path), await listen(`\0er-abstract-${tag}`)];
    try {
      const code = `import socket, ctypes
def f(p):
    out = []
    for addr in (p, '\\0er-abstract-${tag}'):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(addr)
            out.append('connected')
        except Exception as e:
            out.append(type(e).__name__)
    out.append('connected' if ctypes.CDLL(None).socket(1, 1, 0) >= 0 else 'refused')
    return out
`;
      const r = await inBatch(oracle, { code, suite: asserts(`assert 'connected' in f(${JSON.stringify(path)})`, `assert f(${JSON.stringify(path)}) == ['PermissionError', 'PermissionError', 'refused']`) });
      assert.deepEqual(r.outcomes, ['FAIL', 'pass']);
      await sleep(50);
      assert.equal(connections, 0);
    } finally {
      for (const s of servers) s.close();
      rmSync(path, { force: true });
    }
  });

  // ---------------------------------------------------------------- it cannot hurt its neighbours
  // kill(-1, sig) returns 0 even when every target refused (the kernel counts EPERM as tried), so only the
  // per-pid calls are counted; what matters is that the good suites running meanwhile still pass.
  test('neighbours: a candidate signalling every pid it can reach changes no other suite\'s verdict', async () => {
    const code = 'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\ndef f(x):\n    n = 0\n    for sig in (15, 9, 11):\n        libc.kill(-1, sig)\n    for pid in range(2, 65536):\n        if pid != os.getpid():\n            n += libc.kill(pid, 15) == 0\n    return n\n';
    const r = await inBatch(oracle, { code, suite: asserts('assert f(0) > 0') }, SLOW_GOOD);
    assert.deepEqual(r.outcomes, ['FAIL']);
  });

  // ---------------------------------------------------------------- one candidate cannot stop the run
  test('run 1: garbage on the result fd ([] and 1) ends only that suite, as ERROR: BadReport', async () => {
    const code = "import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'[]\\n1\\n')\n    except OSError:\n        pass\ndef f(x):\n    return x + 1\n";
    const r = await inBatch(oracle, { code, suite: WRONG_TESTS });
    assert.deepEqual(r.outcomes, ['ERROR: BadReport', 'ERROR: BadReport']);
  });

  test('run 2: a stream of metadata lines, and an endless line, end the suite at once', async () => {
    const flood = "import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'{\"sandbox\": {}}\\n' * 100000)\n    except OSError:\n        pass\ndef f(x):\n    return x + 1\n";
    const endless = "import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'x' * (6 * 1024 * 1024))\n    except OSError:\n        pass\ndef f(x):\n    return x + 1\n";
    for (const code of [flood, endless]) {
      const r = await inBatch(oracle, { code, suite: WRONG_TESTS });
      assert.deepEqual(r.outcomes, ['ERROR: BadReport', 'ERROR: BadReport']);
    }
  });

  test('run 3: the child is always killed and reaped (bad report while it spins, timeout, lingering after closing its fd)', async () => {
    const spin = "import os, signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'[]\\n')\n    except OSError:\n        pass\ndef f(x):\n    while True:\n        pass\n";
    const loop = 'def f(x):\n    while True:\n        pass\n';
    const closeAndLinger = "import os, time\nfor fd in range(3, 64):\n    try:\n        os.close(fd)\n    except OSError:\n        pass\ntime.sleep(60)\ndef f(x):\n    pass\n";
    const rs = await oracle.runMany([spin, loop, closeAndLinger].map((code) => ({ code, suite: WRONG_TESTS, timeout_s: 1 })));
    assert.deepEqual(rs.map((r) => r.outcomes), [['ERROR: BadReport', 'ERROR: BadReport'], ['TIMEOUT', 'TIMEOUT'], ['TIMEOUT', 'TIMEOUT']]);
    for (const j of myJudges()) assert.deepEqual(processesOfUid(sandboxUid(j)), [], `children of server ${j}`);
  });

  test('run 4: 3,000 nested directories in scratch do not stop the run', async () => {
    // Built through directory fds: the path grows past PATH_MAX, where the audit hook would refuse by path.
    const code = "import os\ndef f(x):\n    fd = os.open('.', os.O_RDONLY)\n    for i in range(3000):\n        os.mkdir('d', dir_fd=fd)\n        nfd = os.open('d', os.O_RDONLY, dir_fd=fd)\n        os.close(fd)\n        fd = nfd\n    return x + 1\n";
    const r = await inBatch(oracle, { code, suite: asserts('assert f(1) == 2') });
    assert.deepEqual(r.outcomes, ['pass']);
  });

  test('run 5: the fallback scratch removal (no mount namespace) removes deep and wide trees without recursion', () => {
    // A 3,000-deep chain (its path is longer than PATH_MAX, so it is built by walking down with fds), each level
    // holding a file and a symlink out of the tree, plus a directory with 2,000 subdirectories.
    const script = `
import os, sys
sys.path.insert(0, ${JSON.stringify(join(process.cwd(), 'infra', 'runner'))})
import sandbox_zygote as z
root = sys.argv[1]
os.mkdir(root)
for i in range(2000):
    os.makedirs(os.path.join(root, 'wide', str(i)))
fd = os.open(root, os.O_RDONLY)
for i in range(3000):
    os.mkdir('x', dir_fd=fd)
    os.close(os.open('f', os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.symlink('/etc', 'link', dir_fd=fd)
    nfd = os.open('x', os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = nfd
os.close(fd)
print(z.remove_tree(root), os.path.exists(root), os.path.exists('/etc/passwd'))
`;
    const dir = mkdtempSync(join(tmpdir(), 'er-rm-'));
    try {
      const r = spawnSync(pythonExecutable(), ['-I', '-c', script, join(dir, 'tree')], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.stdout.trim(), 'True False True', r.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sandbox without a mount namespace (the fallback where the kernel or container refuses one)', () => {
  test('Landlock alone confines writes to the scratch directory and reads to the interpreter; scratch is removed', () => {
    const dir = mkdtempSync(join(stateDir(), 'fallback-'));
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'TOPSECRET', { mode: 0o600 });
    const script = `
import json, os, sys, tempfile
sys.path.insert(0, ${JSON.stringify(join(process.cwd(), 'infra', 'runner'))})
import sandbox
root = tempfile.mkdtemp(prefix='er-fallback-')
os.chmod(root, 0o755)
code = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def probe(p):
    try:
        return open(p).read()
    except OSError as e:
        return type(e).__name__
def write(p):
    return libc.open(p.encode(), 0o101, 0o644) >= 0
def frac():
    return len(__import__('fractions').__name__)
"""
expected = [True, False, False, 'PermissionError', 'PermissionError', 9]
tests = [f"assert {e} == {x!r}" for e, x in zip(["write('inside.txt')", "write('/tmp/er-fallback-escape')",
    "write(os.path.dirname(os.getcwd()) + '/sibling')", "probe('${secret}')", "probe('/etc/hostname')",
    "frac()"], expected)]
tests[2] = "import os\\n" + tests[2]
r = sandbox.run_local({"code": code, "suite": {"kind": "asserts", "tests": tests}, "timeout_s": 5}, root, disabled=('view',))
print(json.dumps({"outcomes": r["outcomes"], "layers": r["sandbox"], "left": os.listdir(root),
                  "escaped": os.path.exists('/tmp/er-fallback-escape')}))
`;
    try {
      const r = spawnSync(pythonExecutable(), ['-I', '-c', script], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { outcomes: string[]; layers: Record<string, unknown>; left: string[]; escaped: boolean };
      // Each expected value is the judge's: write() and probe() run in the candidate's child, the comparison here.
      assert.deepEqual(out.outcomes, new Array(6).fill('pass'));
      assert.equal(out.layers.private_tmp, false);
      assert.equal(out.layers.landlock, true);
      assert.deepEqual(out.layers.caps_kept, [2]); // CAP_DAC_READ_SEARCH, confined by Landlock to the view's paths
      assert.equal(out.escaped, false);
      assert.deepEqual(out.left, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('infrastructure faults are retried once and never cached (issue 11)', () => {
  let oracle: Oracle;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'er-infra-'));
    oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 1 });
    await oracle.run(GOOD); // start the server
  });
  after(async () => {
    await oracle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** SIGKILLs this process's sandbox children, every 20 ms, for `ms`. Returns how many kills were sent. */
  async function killChildrenFor(ms: number, once = false): Promise<number> {
    let kills = 0;
    const end = Date.now() + ms;
    while (Date.now() < end) {
      for (const pid of myChildren()) {
        try {
          process.kill(pid, 'SIGKILL');
          kills++;
        } catch { /* already gone */ }
      }
      if (once && kills) return kills;
      await sleep(20);
    }
    return kills;
  }

  test('a child killed once from outside is run again: the code\'s own outcome, cached', async () => {
    const req: ExecRequest = { code: 'import time\ndef g(x):\n    time.sleep(0.7)\n    return x\n', suite: asserts('assert g(1) == 1') };
    const [r, kills] = await Promise.all([oracle.run(req), killChildrenFor(3000, true)]);
    assert.ok(kills >= 1);
    assert.deepEqual(r.outcomes, ['pass']);
    assert.equal(r.infra_error, undefined);
    assert.equal((await oracle.run(req)).cached, true);
  });

  test('a child killed from outside on both runs is an infra_error, not a failure, and is not cached', async () => {
    const req: ExecRequest = { code: 'import time\ndef g(x):\n    time.sleep(0.7)\n    return x + 0\n', suite: asserts('assert g(1) == 1') };
    const killing = killChildrenFor(4000);
    const r = await oracle.run(req);
    await killing;
    assert.deepEqual(r.outcomes, ['ERROR: Signal(SIGKILL)']);
    assert.equal(r.infra_error, 'child killed by SIGKILL from outside the sandbox');
    assert.equal(r.passed, false);
    const again = await oracle.run(req);
    assert.equal(again.cached, false);
    assert.deepEqual(again.outcomes, ['pass']);
  });

  test('the code killing itself with SIGKILL is refused (seccomp), so it cannot pass for an infrastructure fault', async () => {
    const code = 'import os, signal, ctypes\ndef g(x):\n    r = ctypes.CDLL(None).kill(os.getpid(), 9)\n    signal.raise_signal(signal.SIGKILL)\n    return r\n';
    const r = await oracle.run({ code, suite: asserts('assert g(1) == -1') });
    assert.deepEqual(r.outcomes, ['ERROR: PermissionError']);
    assert.equal(r.infra_error, undefined);
  });

  test('a fork server killed mid-suite is replaced and the suite run again', async () => {
    const req: ExecRequest = { code: 'import time\ndef g(x):\n    time.sleep(0.7)\n    return x * 3\n', suite: asserts('assert g(1) == 3') };
    const running = oracle.run(req);
    await sleep(300);
    const judges = myJudges();
    assert.equal(judges.length, 1);
    process.kill(judges[0], 'SIGKILL');
    const r = await running;
    assert.deepEqual(r.outcomes, ['pass']);
    assert.equal(r.infra_error, undefined);
    assert.notDeepEqual(myJudges(), judges);
  });
});
