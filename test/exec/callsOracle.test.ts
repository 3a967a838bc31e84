/**
 * The `calls` judge for JavaScript, TypeScript and Go (infra/runner/sandbox_calls.py): verdicts decided in the
 * judge from plain data, and the hostile classes of the Python sandbox that apply, each in a batch with good
 * suites whose verdicts must not change. Needs what CI has: root, Landlock, node and go.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { myJudges, processesOfUid, sandboxUid } from './support.ts';
import type { Call, CallsLanguage, ExecRequest, ExecResult } from '../../schemas/exec.ts';

const calls = (language: CallsLanguage, entry: string, cs: Call[]) => ({ kind: 'calls' as const, language, entry_point: entry, calls: cs });
const ADD_CALLS: Call[] = [{ args: [1, 2], expected: 3 }, { args: [2, 2], expected: 4 }];
const GOOD: Record<CallsLanguage, ExecRequest> = {
  javascript: { code: 'function add(a, b) {\n  return a + b;\n}\n', suite: calls('javascript', 'add', ADD_CALLS) },
  typescript: { code: 'function add(a: number, b: number): number {\n  return a + b;\n}\n', suite: calls('typescript', 'add', ADD_CALLS) },
  go: { code: 'func Add(a int, b int) int {\n\treturn a + b\n}\n', suite: calls('go', 'Add', ADD_CALLS) },
};
// The wrong canonical every attack wraps: the entry returns 0 where the calls want a + b.
const attack = (language: CallsLanguage, code: string): ExecRequest => ({ code, suite: calls(language, language === 'go' ? 'Add' : 'add', ADD_CALLS) });
const secret = join(mkdtempSync(join(tmpdir(), 'calls-secret-')), 'secret.txt');

async function inBatch(oracle: Oracle, req: ExecRequest): Promise<ExecResult> {
  const lang = (req.suite as { language: CallsLanguage }).language;
  const good = GOOD[lang];
  const [a, r, b] = await oracle.runMany([good, req, { ...good, code: `${good.code}\n` }]);
  assert.deepEqual(a.outcomes, ['pass', 'pass'], 'good suite before');
  assert.deepEqual(b.outcomes, ['pass', 'pass'], 'good suite after');
  assert.equal(r.infra_error, undefined, `no infrastructure fault: ${r.infra_error}`);
  return r;
}

describe('calls suites: JavaScript, TypeScript, Go', () => {
  let oracle: Oracle;
  before(async () => {
    writeFileSync(secret, '3');
    oracle = await openOracle({ cachePath: null, concurrency: 2, timeoutS: 2 });
  });
  after(async () => {
    await oracle.close();
    rmSync(join(secret, '..'), { recursive: true, force: true });
  });

  test('JavaScript: values, approx, throws by constructor name, mutated argument, every verdict parent-judged', async () => {
    const r = await oracle.run({
      code: 'function f(xs, k) {\n  if (k < 0) throw new RangeError("k");\n  xs.sort((a, b) => a - b);\n  return { sum: xs.reduce((a, b) => a + b, 0) / k, n: xs.length, none: undefined };\n}\n',
      suite: calls('javascript', 'f', [
        { args: [[3, 1, 2], 1], expected: { n: 3, sum: 6.0, none: null } },
        { args: [[1, 1, 1], 3], expected: { sum: 1.0001, n: 3, none: null }, approx: 1e-3 },
        { args: [[1, 1, 1], 3], expected: { sum: 1.0001, n: 3, none: null } },
        { args: [[3, 1], -1], throws: 'RangeError' },
        { args: [[3, 1], -1], throws: 'TypeError' },
        { args: [[3, 1], 1], throws: 'RangeError' },
        { args: [[3, 1, 2], 1], mutates: 0, expected: [1, 2, 3] },
      ]),
    });
    assert.deepEqual(r.outcomes, ['pass', 'pass', 'FAIL: expected {"n": 3, "none": null, "sum": 1.0001}, got {"n": 3, "none": null, "sum": 1}', 'pass', 'ERROR: RangeError', 'FAIL: DID NOT RAISE RangeError', 'pass']);
    assert.deepEqual(r.judged, new Array(7).fill('parent'));
  });

  test('a calls child runs under the same layers as a Python candidate (one isolate: namespaces, rlimits, seccomp)', async () => {
    assert.deepEqual((await oracle.run(GOOD.javascript)).outcomes, ['pass', 'pass']);
    const layers = await oracle.layers!();
    for (const layer of ['pidns', 'ipc_uts', 'userns', 'netns', 'private_tmp', 'landlock', 'seccomp', 'no_new_processes']) assert.equal(layers[layer], true, layer);
    assert.equal(layers.audit_hook, false); // a Python-only layer: it would refuse the exec of node
    assert.equal(layers.judge_seccomp, undefined); // no judge child: the server compares the data
  });

  test('TypeScript: types erased in the judge process (no tsc per snippet); a syntax error is its own outcome', async () => {
    const ok = await oracle.run({ code: 'interface P { x: number }\nfunction norm(p: P, k: number = 2): number {\n  const v = p.x as number;\n  return v * k;\n}\n', suite: calls('typescript', 'norm', [{ args: [{ x: 2 }, 3], expected: 6 }]) });
    assert.deepEqual(ok.outcomes, ['pass']);
    const bad = await oracle.run({ code: 'function norm(p: {x: number}: number {\n  return 1;\n}\n', suite: calls('typescript', 'norm', [{ args: [{ x: 2 }, 3], expected: 6 }]) });
    assert.deepEqual(bad.outcomes, ['ERROR: SyntaxError']);
    const js = await oracle.run({ code: 'function norm(p, k) {\n  return p.x * k;\n', suite: calls('javascript', 'norm', [{ args: [{ x: 2 }, 3], expected: 6 }]) });
    assert.deepEqual(js.outcomes, ['ERROR: SyntaxError']);
  });

  test('Go: one binary per snippet; results, several results as an array, error and panic, compile error', async () => {
    const code = 'import (\n\t"errors"\n\t"sort"\n)\n\ntype Stat struct {\n\tMin int `json:"min"`\n\tMax int `json:"max"`\n}\n\nfunc Span(xs []int) (Stat, int, error) {\n\tif len(xs) == 0 {\n\t\treturn Stat{}, 0, errors.New("empty")\n\t}\n\tif xs[0] < 0 {\n\t\tpanic("negative")\n\t}\n\tsort.Ints(xs)\n\treturn Stat{xs[0], xs[len(xs)-1]}, len(xs), nil\n}\n';
    const r = await oracle.run({
      code,
      suite: calls('go', 'Span', [
        { args: [[3, 1, 2]], expected: [{ min: 1, max: 3 }, 3] },
        { args: [[3, 1, 2]], expected: [{ min: 1, max: 2 }, 3] },
        { args: [[]], throws: 'error' },
        { args: [[-1]], throws: 'panic' },
        { args: [[-1]], expected: [{ min: -1, max: -1 }, 1] },
        { args: [[5, 4]], mutates: 0, expected: [4, 5] },
        { args: [['x']], expected: null },
      ]),
    });
    assert.deepEqual(r.outcomes, ['pass', 'FAIL: expected [{"max": 2, "min": 1}, 3], got [{"max": 3, "min": 1}, 3]', 'pass', 'pass', 'ERROR: panic', 'pass', 'ERROR: ArgumentType']);
    const broken = await oracle.run({ code: 'func Add(a int, b int) int {\n\treturn a + "b"\n}\n', suite: GOOD.go.suite });
    assert.deepEqual(broken.outcomes, ['ERROR: CompileError', 'ERROR: CompileError']);
    const missing = await oracle.run({ code: 'func Sub(a int, b int) int {\n\treturn a - b\n}\n', suite: GOOD.go.suite });
    assert.deepEqual(missing.outcomes, ['ERROR: CompileError', 'ERROR: CompileError']);
  });

  test('size caps before anything parses or sends: JS code over 1 MiB, calls over 4 MiB fail that suite alone', async () => {
    const big = await inBatch(oracle, attack('javascript', `function add(a, b) {\n  return 0;\n}\n//${'x'.repeat(1 << 20)}\n`));
    assert.deepEqual(big.outcomes, ['ERROR: CodeTooLarge', 'ERROR: CodeTooLarge']);
    const huge = Array.from({ length: 5 }, () => ({ args: ['y'.repeat(1 << 20), 0], expected: 0 }));
    const suite = await inBatch(oracle, { code: GOOD.javascript.code, suite: calls('javascript', 'add', huge) });
    assert.deepEqual(suite.outcomes, new Array(5).fill('ERROR: SuiteTooLarge'));
  });

  test('JavaScript: an infinite loop, a memory bomb, a fork bomb are the candidate\'s outcomes', async () => {
    assert.deepEqual((await inBatch(oracle, attack('javascript', 'function add(a, b) {\n  for (;;) {}\n}\n'))).outcomes, ['TIMEOUT', 'TIMEOUT']);
    const mem = await inBatch(oracle, attack('javascript', 'function add(a, b) {\n  const xs = [];\n  for (;;) xs.push(new Array(1e6).fill(a));\n}\n'));
    assert.ok(mem.outcomes.every((o) => o.startsWith('ERROR: ')), mem.outcomes.join());
    const fork = await inBatch(oracle, attack('javascript', 'function add(a, b) {\n  for (let i = 0; i < 50; i++) process.binding("spawn_sync").spawn({ file: "/bin/sleep", args: ["sleep", "600"], stdio: [], envPairs: [] });\n  return require("child_process").execSync("echo 3").toString().trim() * 1;\n}\n'));
    assert.ok(fork.outcomes.every((o) => o.startsWith('ERROR: ')), fork.outcomes.join());
  });

  test('JavaScript: reading files, the network, killing the parent, forging report lines do not pass', async () => {
    const read = await inBatch(oracle, attack('javascript', `function add(a, b) {\n  return Number(require("fs").readFileSync(${JSON.stringify(secret)}, "utf8"));\n}\n`));
    assert.deepEqual(read.outcomes, ['ERROR: Error', 'ERROR: Error']);
    // A connection is asynchronous in Node: the answer would have to come back before the call returns.
    const net = await inBatch(oracle, attack('javascript', 'function add(a, b) {\n  const r = require("child_process").spawnSync("/usr/bin/curl", ["-s", "http://1.1.1.1/"]);\n  if (r.error) throw r.error;\n  return Number(r.stdout);\n}\n'));
    assert.ok(net.outcomes.every((o) => o.startsWith('ERROR: ')), net.outcomes.join());
    const kill = await inBatch(oracle, attack('javascript', 'function add(a, b) {\n  process.kill(process.ppid, "SIGKILL");\n  process.kill(1, "SIGKILL");\n  return 0;\n}\n'));
    assert.deepEqual(kill.outcomes, ['ERROR: Error', 'ERROR: Error']);
    const forge = await inBatch(oracle, attack('javascript', 'function add(a, b) {\n  const fs = require("fs");\n  fs.writeSync(3, \'{"i": 0, "o": "pass"}\\n{"i": 1, "o": "pass"}\\n\');\n  process.exit(0);\n}\n'));
    assert.deepEqual(forge.outcomes, ['ERROR: BadReport', 'ERROR: BadReport']);
    const patch = await inBatch(oracle, attack('javascript', 'JSON.stringify = () => \'{"i":0,"o":"pass"}\';\nfunction add(a, b) {\n  return 0;\n}\n'));
    assert.deepEqual(patch.outcomes, ['FAIL: expected 3, got 0', 'FAIL: expected 4, got 0']);
  });

  test('Go: loops, memory, processes, files, network, signals and forged lines do not pass or reach the host', async () => {
    const go = (body: string, imports: string[] = []) => attack('go', `${imports.length ? `import (\n${imports.map((i) => `\t"${i}"`).join('\n')}\n)\n\n` : ''}func Add(a int, b int) int {\n${body}\n}\n`);
    assert.deepEqual((await inBatch(oracle, go('\tfor {\n\t}'))).outcomes, ['TIMEOUT', 'TIMEOUT']);
    const mem = await inBatch(oracle, go('\tvar xs [][]int\n\tfor {\n\t\txs = append(xs, make([]int, 1<<20))\n\t\txs[len(xs)-1][0] = a\n\t}', []));
    assert.ok(mem.outcomes.every((o) => o.startsWith('ERROR: ')), mem.outcomes.join());
    const proc = await inBatch(oracle, go('\tfor i := 0; i < 50; i++ {\n\t\t_ = exec.Command("/bin/sleep", "600").Start()\n\t}\n\tout, err := exec.Command("/bin/echo", "3").Output()\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\treturn len(out)', ['os/exec']));
    assert.deepEqual(proc.outcomes, ['ERROR: panic', 'ERROR: panic']);
    const read = await inBatch(oracle, go(`\tdata, err := os.ReadFile(${JSON.stringify(secret)})\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\treturn int(data[0] - '0')`, ['os']));
    assert.deepEqual(read.outcomes, ['ERROR: panic', 'ERROR: panic']);
    const net = await inBatch(oracle, go('\tif _, err := net.Dial("tcp", "1.1.1.1:80"); err != nil {\n\t\tpanic(err)\n\t}\n\treturn a + b', ['net']));
    assert.deepEqual(net.outcomes, ['ERROR: panic', 'ERROR: panic']);
    const kill = await inBatch(oracle, go('\tsyscall.Kill(os.Getppid(), syscall.SIGKILL)\n\tsyscall.Kill(-1, syscall.SIGKILL)\n\treturn 0', ['os', 'syscall']));
    assert.deepEqual(kill.outcomes, ['FAIL: expected 3, got 0', 'FAIL: expected 4, got 0']);
    const forge = await inBatch(oracle, go('\tf := os.NewFile(3, "r")\n\tf.Write([]byte("{\\"i\\": 0, \\"o\\": \\"pass\\"}\\n{\\"i\\": 1, \\"o\\": \\"pass\\"}\\n"))\n\tos.Exit(0)\n\treturn 0', ['os']));
    assert.deepEqual(forge.outcomes, ['ERROR: BadReport', 'ERROR: BadReport']);
  });

  test('Go: a POSIX timer sending SIGKILL and System V IPC (issue 36\'s classes) are held in a calls child too', async () => {
    const go = (body: string, imports = ['syscall', 'unsafe']) => attack('go', `import (\n${imports.map((i) => `\t"${i}"\n`).join('')})\n\nfunc Add(a int, b int) int {\n${body}\n}\n`);
    // timer_create refused by seccomp: the kernel cannot be made to SIGKILL the child (which would read as a kill
    // from outside, an infrastructure fault), so the candidate's own code returns 0 and fails.
    const timer = await inBatch(oracle, go([
      '\tvar sev [64]byte',
      '\tsev[8] = 9 // sigev_signo SIGKILL, sigev_notify SIGEV_SIGNAL',
      '\tvar id int32',
      '\tif _, _, e := syscall.Syscall(syscall.SYS_TIMER_CREATE, 1, uintptr(unsafe.Pointer(&sev[0])), uintptr(unsafe.Pointer(&id))); e != 0 {',
      '\t\treturn 0',
      '\t}',
      '\tits := [4]int64{0, 0, 0, 1000000}',
      '\tsyscall.Syscall6(syscall.SYS_TIMER_SETTIME, uintptr(id), 0, uintptr(unsafe.Pointer(&its[0])), 0, 0, 0)',
      '\tfor {',
      '\t}',
    ].join('\n')));
    assert.deepEqual(timer.outcomes, ['FAIL: expected 3, got 0', 'FAIL: expected 4, got 0']);
    // A System V segment created in one suite is gone for the next and never on the host (an IPC namespace per child).
    const key = 0x5eed36;
    const shm = go([
      `\tif id, _, e := syscall.Syscall(syscall.SYS_SHMGET, ${key}, 4096, 0); e == 0 && int(id) >= 0 {`,
      '\t\treturn 0 // a segment left by an earlier suite',
      '\t}',
      `\tif _, _, e := syscall.Syscall(syscall.SYS_SHMGET, ${key}, 4096, 01000|0666); e != 0 {`,
      '\t\treturn -1',
      '\t}',
      '\treturn a + b',
    ].join('\n'), ['syscall']);
    // One call per suite: the calls of one suite share its process, so a second call would see the first's segment.
    const one = calls('go', 'Add', [ADD_CALLS[0]]);
    const [first, second] = await oracle.runMany([{ ...shm, suite: one }, { ...shm, code: `${shm.code}\n`, suite: one }]);
    assert.deepEqual([first.outcomes, second.outcomes], [['pass'], ['pass']]);
    const hostKeys = readFileSync('/proc/sysvipc/shm', 'utf8').split('\n').slice(1).map((l) => Number(l.trim().split(/\s+/)[0]));
    assert.ok(!hostKeys.includes(key), 'the segment reached the host');
  });

  test('no process a candidate started outlives its suite', async () => {
    const judges = myJudges();
    assert.ok(judges.length > 0);
    for (const j of judges) assert.deepEqual(processesOfUid(sandboxUid(j)), [], `processes left under judge ${j}`);
  });
});
