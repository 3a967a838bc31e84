import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pingWorkflow } from '../../workflows/ping.ts';
import { freePort, startDevServer } from '../../infra/temporal/devServer.ts';
import { createServer, type AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { PROJECT_ROOT } from '../../workers/registry.ts';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

let t: TestTemporal;
before(async () => {
  t = await startTestTemporal();
});
after(() => t?.stop());

test('a real dev server runs a workflow whose activities reach a worker on every task queue', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues });
  const replies = await t.client.workflow.execute(pingWorkflow, {
    taskQueue: queues.default,
    workflowId: `ping-${queues.prefix}`,
    args: [{ queues, message: 'hello' }],
  });
  assert.deepEqual(replies.map((r) => r.queue), ['default', 'llm', 'exec', 'embed']);
  assert.ok(replies.every((r) => r.message === 'hello' && r.pid === process.pid));
});

test('a worker serving only some queues leaves the others unanswered (queues are really separate)', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, keys: ['default', 'llm'] });
  const ok = await t.client.workflow.execute(pingWorkflow, {
    taskQueue: queues.default,
    workflowId: `ping-some-${queues.prefix}`,
    args: [{ queues, message: 'x', keys: ['llm'] }],
  });
  assert.equal(ok[0].queue, 'llm');
  // No worker polls the exec queue: the activity can only time out (schedule-to-close is not set, so cap the workflow run).
  const handle = await t.client.workflow.start(pingWorkflow, {
    taskQueue: queues.default,
    workflowId: `ping-missing-${queues.prefix}`,
    args: [{ queues, message: 'x', keys: ['exec'] }],
    workflowExecutionTimeout: '3 seconds',
  });
  await assert.rejects(handle.result(), /timed out|TIMEOUT/i);
});

test('a second dev server on the same database file is refused with the address of the first', async () => {
  const db = join(t.tmp, 'shared.db');
  const first = await startDevServer({ dbFile: db });
  try {
    await assert.rejects(startDevServer({ dbFile: db }), new RegExp(`in use by a temporal dev server at ${first.address.replace('.', '\\.')}`));
  } finally {
    await first.stop();
  }
  assert.equal(existsSync(`${db}.server.json`), false);
});

test('a dev server left running by a SIGKILLed process is stopped by the next start, not a reason to refuse', async () => {
  const db = join(t.tmp, 'orphan.db');
  // A stand-in for the CLI: starts the server on the database, then is killed before it can stop it.
  const starter = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e',
      `import { startDevServer } from ${JSON.stringify(join(PROJECT_ROOT, 'infra/temporal/devServer.ts'))};
       const s = await startDevServer({ dbFile: ${JSON.stringify(db)} });
       console.log('READY ' + s.pid);
       setInterval(() => {}, 1 << 30);`],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  starter.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const deadline = Date.now() + 90_000;
  while (!/READY (\d+)/.test(out) && Date.now() < deadline && starter.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  const orphanPid = Number(/READY (\d+)/.exec(out)?.[1]);
  assert.ok(orphanPid > 0, `the starter reported its server: ${out}`);
  starter.kill('SIGKILL');
  await once(starter, 'exit');
  assert.equal(isAlive(orphanPid), true, 'the server outlives the process that started it');

  const next = await startDevServer({ dbFile: db });
  try {
    assert.equal(isAlive(orphanPid), false, 'the orphan was stopped');
    assert.notEqual(next.pid, orphanPid);
    assert.equal(JSON.parse(readFileSync(`${db}.server.json`, 'utf8')).owner_pid, process.pid);
  } finally {
    await next.stop();
  }
});

test('a port taken between picking it and the server binding it: the start is tried again on fresh ports; a port given by the caller is not', async () => {
  // The race itself, made certain: the first port handed out is held by a listener of ours. It resets each
  // connection at once: a readiness attempt that reached a listener that accepts and never answers left a grpc-js
  // socket open that kept this file's process alive after its last test (CI hung so).
  const holder = createServer((sock) => sock.destroy());
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const taken = (holder.address() as AddressInfo).port;
  try {
    const picks: number[] = [];
    const lines: string[] = [];
    const s = await startDevServer({
      dbFile: null,
      log: (m) => lines.push(m),
      pickPort: async () => {
        const p = picks.length === 0 ? taken : await freePort();
        picks.push(p);
        return p;
      },
    });
    try {
      assert.equal(picks[0], taken);
      assert.equal(s.address, `127.0.0.1:${picks[1]}`, 'up on the second pick');
      assert.ok(lines.some((l) => /taken before it bound it; trying fresh ports \(2\/3\)/.test(l)), lines.join('\n'));
    } finally {
      await s.stop();
    }
    await assert.rejects(startDevServer({ dbFile: null, port: taken }), /exited during start-up .*\n.*address already in use/);
  } finally {
    holder.close();
  }
});
