/**
 * The Node side of the fork-server protocol (issue 11): a server that breaks the protocol is killed and reported
 * as dead (never an exception that aborts the batch), an `error` frame fails only its own request, and a frame
 * split into many small chunks is read whole.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForkServer, ForkServerDied, resultProblem } from '../../activities/exec/forkServer.ts';
import { SandboxPool } from '../../activities/exec/pool.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';

const dir = mkdtempSync(join(tmpdir(), 'er-fake-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A fake fork server: hello, then for the first request the frame body given (raw bytes, hex), then it waits. */
function fakeServer(name: string, reply: string): string {
  const path = join(dir, `${name}.py`);
  writeFileSync(path, `import json, struct, sys, time
out = sys.stdout.buffer
def frame(b):
    out.write(struct.pack('>I', len(b)) + b)
    out.flush()
frame(json.dumps({"ready": True}).encode())
head = sys.stdin.buffer.read(4)
req = json.loads(sys.stdin.buffer.read(struct.unpack('>I', head)[0]))
reply = bytes.fromhex(${JSON.stringify(Buffer.from(reply, 'latin1').toString('hex'))}).replace(b'ID', str(req['id']).encode())
if reply.startswith(b'RAW:'):
    out.write(reply[4:])
    out.flush()
elif reply == b'CHUNKED':
    body = json.dumps({"id": req['id'], "outcomes": ["pass"], "judged": ["parent"], "wall_ms": 1, "sandbox": {}}).encode()
    data = struct.pack('>I', len(body)) + body
    for i in range(len(data)):
        out.write(data[i:i + 1])
        out.flush()
else:
    frame(reply)
time.sleep(30)
`);
  return path;
}

describe('fork server protocol (Node side)', () => {
  const req = { id: 7, code: 'pass', suite: {}, timeout_s: 5 };
  const cases: [string, string, RegExp][] = [
    ['a frame that is a JSON list', '[]', /malformed result: frame is not a JSON object/],
    ['a frame that is a JSON number', '1', /malformed result: frame is not a JSON object/],
    ['a frame that is not JSON', '{"id": ID, "outc', /not JSON/],
    ['a frame for another request', '{"id": 99, "outcomes": ["pass"], "judged": ["parent"], "wall_ms": 1}', /answers request 99, expected 7/],
    ['a frame without judged', '{"id": ID, "outcomes": ["pass"], "wall_ms": 1}', /no judged list/],
    ['a frame over the byte cap', 'RAW:\xff\xff\xff\xff', /exceeds|cap/],
  ];
  for (const [name, reply, message] of cases) {
    test(`${name}: the server is killed and the request fails as ForkServerDied`, async () => {
      const server = await ForkServer.start(pythonExecutable(), fakeServer(name.replace(/\W+/g, '_'), reply));
      await assert.rejects(server.run(req), (err: Error) => err instanceof ForkServerDied && message.test(err.message) && !err.hung);
      assert.equal(server.alive, false);
    });
  }

  test('a frame arriving one byte at a time is read whole', async () => {
    const server = await ForkServer.start(pythonExecutable(), fakeServer('chunked', 'CHUNKED'));
    const r = await server.run(req);
    assert.deepEqual(r.outcomes, ['pass']);
    assert.equal(server.alive, true);
    process.kill(server.pid!, 'SIGKILL');
  });

  test('resultProblem accepts a well-formed result and an error frame', () => {
    assert.equal(resultProblem({ id: 1, outcomes: ['pass', 'FAIL'], judged: ['parent', 'child'], wall_ms: 3 }, 1), null);
    assert.equal(resultProblem({ id: 1, error: 'bad request: x' }, 1), null);
    assert.match(resultProblem({ id: 1, outcomes: ['pass'], judged: ['parent'], wall_ms: 3, infra_error: 5 }, 1) ?? '', /infra_error/);
  });
});

describe('the real fork server: a refused request fails alone', () => {
  let pool: SandboxPool;
  before(() => {
    pool = new SandboxPool(1);
  });
  after(async () => pool.close());

  test('an error frame is an infrastructure failure of that request; the same server serves the next one', async () => {
    const first = await pool.run('def f():\n    return 1\n', { kind: 'asserts', tests: ['assert f() == 1'] }, 1, 5);
    assert.deepEqual(first.outcomes, ['pass']);
    const server = pool.serverIn(0);
    const bad = await pool.run('x = 1', { kind: 'nonsense' }, 1, 5);
    assert.deepEqual(bad.outcomes, ['ERROR: SandboxDied']);
    assert.match(bad.infraError ?? '', /^sandbox refused the request: bad request: suite must be/);
    const tooLong = await pool.run('x = 1', { kind: 'asserts', tests: ['assert x == 1'] }, 1, 7200);
    assert.match(tooLong.infraError ?? '', /timeout_s must be a number in \(0, 3600\]/);
    const next = await pool.run('def f():\n    return 2\n', { kind: 'asserts', tests: ['assert f() == 2'] }, 1, 5);
    assert.deepEqual(next.outcomes, ['pass']);
    assert.equal(pool.serverIn(0), server);
  });
});

/** This process's live fork-server children (their command line names sandbox.py serve). */
function serverChildren(): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid || fields[0] === 'Z') continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('sandbox.py\0serve')) out.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

describe('warming the pool (scoring starts its servers beside ranking)', () => {
  test('warm starts one server per slot before any run; a run uses it, and no slot starts a second', async () => {
    const pool = new SandboxPool(2);
    try {
      const warming = pool.warm();
      const run = pool.run('def f():\n    return 1\n', { kind: 'asserts', tests: ['assert f() == 1'] }, 1, 5);
      await warming;
      const servers = [pool.serverIn(0), pool.serverIn(1)];
      assert.ok(servers.every((s) => s?.alive), 'both slots have a live server after warm()');
      assert.deepEqual((await run).outcomes, ['pass']);
      assert.deepEqual([pool.serverIn(0), pool.serverIn(1)], servers);
      assert.equal(serverChildren().length, 2);
    } finally {
      await pool.close();
    }
  });

  test('closing while the servers are still starting leaves none running', async () => {
    const pool = new SandboxPool(2);
    void pool.warm();
    await pool.close();
    const left = serverChildren();
    for (const pid of left) process.kill(pid, 'SIGKILL'); // ours: so that a failure here fails, not hangs the file
    assert.deepEqual(left, []);
  });
});
