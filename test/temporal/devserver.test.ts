import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pingWorkflow } from '../../workflows/ping.ts';
import { startDevServer } from '../../infra/temporal/devServer.ts';

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
