/**
 * What the candidate causes is the candidate's failure (issue 25): each class below fails its own suite, with an
 * exact outcome, no infra_error, cached as such; good suites in the same batch keep their verdicts and the fork
 * server that ran the attack goes on serving. Needs what CI has: root on a kernel with Landlock and seccomp.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';
import type { ExecRequest, ExecResult, TestSuite } from '../../schemas/exec.ts';
import { myJudges } from './support.ts';

const asserts = (...tests: string[]): TestSuite => ({ kind: 'asserts', tests });
const GOOD: ExecRequest = { code: 'def g(x):\n    return x * 2\n', suite: asserts('assert g(2) == 4', 'assert g(3) == 6') };
let salt = 0;

describe('candidate-caused failures are the candidate\'s, never infrastructure faults (issue 25)', () => {
  let oracle: Oracle;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'er-cand-'));
    oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 1 });
    await oracle.run(GOOD);
  });
  after(async () => {
    await oracle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** [good, attack, good] in one batch on the one fork server: the good ones pass, the attack is no fault, the
   * same server is still there, and running the attack again is answered from the cache. */
  async function inBatch(attack: ExecRequest): Promise<ExecResult> {
    const judges = myJudges();
    const t0 = performance.now();
    const good = (n: number) => ({ ...GOOD, code: `${GOOD.code}# ${n}\n` });
    const [a, r, b] = await oracle.runMany([good(++salt), attack, good(++salt)]);
    const seconds = (performance.now() - t0) / 1000;
    assert.deepEqual(a.outcomes, ['pass', 'pass'], 'good suite before the attack');
    assert.deepEqual(b.outcomes, ['pass', 'pass'], 'good suite after the attack');
    assert.equal(r.infra_error, undefined, 'the attack is not an infrastructure fault');
    assert.deepEqual(myJudges(), judges, 'the fork server survived');
    assert.equal((await oracle.run(attack)).cached, true, 'the failure is cached as the code\'s outcome');
    assert.ok(seconds < 30, `batch took ${seconds.toFixed(1)} s`);
    return r;
  }

  test('lowering its own CPU limit (to be SIGKILLed by the kernel) is refused: the code fails, the run goes on', async () => {
    const code = 'import resource, signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\ndef f(x):\n    resource.setrlimit(resource.RLIMIT_CPU, (1, 1))\n    while True:\n        pass\ndef h(x):\n    import ctypes\n    return [resource.getrlimit(resource.RLIMIT_CPU)[1] > 1, ctypes.CDLL(None).syscall(160, 0, 0)]\n';
    const r = await inBatch({ code, suite: asserts('assert f(1) == 2', 'assert h(1) == [True, -1]'), timeout_s: 3 });
    // setrlimit refused (EPERM), read-only getrlimit still answered, the raw syscall refused too.
    assert.deepEqual(r.outcomes, ['ERROR: ValueError', 'pass']);
  });

  test('a timeout is the code\'s TIMEOUT; a kernel SIGKILL at the CPU hard limit is one too, not an outside kill', async () => {
    const r = await inBatch({ code: 'def f(x):\n    while True:\n        pass\n', suite: asserts('assert f(1) == 2'), timeout_s: 1 });
    assert.deepEqual(r.outcomes, ['TIMEOUT']);
    // The zygote's clock normally kills first; the rule for a SIGKILL the kernel sent at the hard limit is checked
    // on its inputs (wait status 9 = killed by SIGKILL).
    const script = `import sys\nsys.path.insert(0, ${JSON.stringify(join(process.cwd(), 'infra', 'runner'))})\nimport sandbox_zygote as z\nprint(z._missing_outcome(False, None, 9, False, 3.0, 2.95), z._missing_outcome(False, None, 9, False, 0.5, 2.95))`;
    const out = spawnSync(pythonExecutable(), ['-I', '-c', script], { encoding: 'utf8' });
    assert.equal(out.stdout.trim(), "('TIMEOUT', None) ('ERROR: Signal(SIGKILL)', 'child killed by SIGKILL from outside the sandbox')", out.stderr);
  });

  test('a memory cap hit is the code\'s MemoryError', async () => {
    const r = await inBatch({ code: 'def f(x):\n    return bytearray(20 * 1024**3)\n', suite: asserts('assert f(1) == 2') });
    assert.deepEqual(r.outcomes, ['ERROR: MemoryError']);
  });

  test('a canonical over the request cap is refused before it is sent: ERROR: RequestTooLarge, the server lives', async () => {
    const code = `# ${'x'.repeat(65 * 1024 * 1024)}\ndef f(x):\n    return x\n`;
    const r = await inBatch({ code, suite: asserts('assert f(1) == 1') });
    assert.deepEqual(r.outcomes, ['ERROR: RequestTooLarge']);
    assert.equal(r.passed, false);
  });

  test('a returned value over the value cap is the code\'s failure', async () => {
    const r = await inBatch({ code: 'def f(x):\n    return "y" * (5 * 1024 * 1024)\n', suite: asserts('assert f(1) == "y"') });
    assert.deepEqual(r.outcomes, ['ERROR: value too large']);
  });

  test('control bytes in candidate text (ANSI, CR, BEL, NUL, bidi) come back as visible escapes', async () => {
    const code = 'def f(x):\n    raise AssertionError("\\x1b[2J\\rgone\\x07\\x00\\u202e")\ndef g(x):\n    raise type("\\x1b[31mEvil", (Exception,), {})()\n';
    const r = await inBatch({ code, suite: asserts('assert f(1) == 2', 'assert g(1) == 2', 'for i in [1]:\n    f(i)') });
    assert.deepEqual(r.outcomes, ['FAIL: \\x1b[2J\\x0dgone\\x07\\x00\\u202e', 'ERROR: \\x1b[31mEvil', 'FAIL: \\x1b[2J\\x0dgone\\x07\\x00\\u202e']);
    // eslint-disable-next-line no-control-regex
    for (const o of r.outcomes) assert.doesNotMatch(o, /[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  test('a value line of 100,000 ints that all hash alike is refused in linear time (ERROR: BadReport)', async () => {
    // The candidate replaces the runner's encoder, so its report line is a set payload the child never built.
    const code = `import sys
M = (1 << 61) - 1
enc = lambda v: ["S", [["i", hex(k * M)] for k in range(1, 100001)]]
for m in list(sys.modules.values()):
    if getattr(m, "MAX_SAME_HASH", None) is not None or hasattr(m, "encode_opaque"):
        m.encode = enc
def f(x):
    return {1, 2}
`;
    const r = await inBatch({ code, suite: asserts('assert f(1) == {1, 2}', 'assert f(2) == {1, 2}') });
    assert.deepEqual(r.outcomes, ['ERROR: BadReport', 'ERROR: BadReport']);
  });
});
