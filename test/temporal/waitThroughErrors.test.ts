/**
 * The CLI waits through a server that does not answer for a while (issue 23: under load, `error: Failed to get
 * Workflow execution history`, exit 1, while the run was healthy). The fault is injected at the gRPC layer of
 * the real client, against a real dev server: the calls that wait for the result fail with DEADLINE_EXCEEDED (as
 * a loaded server's long poll does, and which the SDK does not retry itself), then answer again.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { waitForResult } from '../../cli/temporalRun.ts';
import { CliError } from '../../cli/errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { pingWorkflow } from '../../workflows/ping.ts';

let t: TestTemporal;
before(async () => {
  t = await startTestTemporal();
});
after(async () => {
  await t?.stop();
});

/** A client whose calls named by `failing` get a deadline already past: grpc ends them with DEADLINE_EXCEEDED. */
async function faultyClient(failing: (method: string) => boolean): Promise<{ client: Client; injected: () => number; close: () => Promise<void> }> {
  let injected = 0;
  const fault: Interceptor = (options, nextCall) => {
    const method = options.method_definition.path.split('/').pop()!;
    if (!failing(method)) return new InterceptingCall(nextCall(options));
    injected++;
    return new InterceptingCall(nextCall({ ...options, deadline: Date.now() - 1 }));
  };
  const connection = await Connection.connect({ address: t.address, interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), fault] });
  return { client: new Client({ connection, namespace: t.namespace }), injected: () => injected, close: () => connection.close() };
}

test('the wait goes on through failed history calls and returns the run\'s result once the server answers again', async () => {
  let down = true;
  const c = await faultyClient((m) => down && m === 'GetWorkflowExecutionHistory');
  const queues = t.uniqueQueues();
  const lines: string[] = [];
  try {
    // No worker yet: the workflow waits for its activity, and the CLI for the workflow.
    const workflowId = `wait-${queues.prefix}`;
    await c.client.workflow.start(pingWorkflow, { taskQueue: queues.default, workflowId, args: [{ queues, message: 'still here', keys: ['default'] }] });
    const result = waitForResult<typeof pingWorkflow>(c.client, workflowId, { retryMs: 20, patienceMs: 60_000, log: (l) => lines.push(l) });
    for (let i = 0; i < 500 && c.injected() < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(c.injected() >= 5, 'the result was asked for, and failed, several times');
    down = false;
    await t.startWorkers({ queues, keys: ['default'] });
    const replies = await result;
    assert.equal(replies[0].message, 'still here');
    assert.equal(lines.length, 1, `one line while waiting: ${lines.join(' | ')}`);
    assert.match(lines[0], /did not answer \(.*Failed to get Workflow execution history.*\); waiting for it/);
  } finally {
    await c.close();
  }
});

test('a server that stays unreachable ends the wait with one line, the command that waits again, and exit 5', async () => {
  const c = await faultyClient((m) => m === 'GetWorkflowExecutionHistory' || m === 'DescribeWorkflowExecution');
  const queues = t.uniqueQueues();
  try {
    const workflowId = `gone-${queues.prefix}`;
    await c.client.workflow.start(pingWorkflow, { taskQueue: queues.default, workflowId, args: [{ queues, message: 'x', keys: ['default'] }] });
    await assert.rejects(
      waitForResult(c.client, workflowId, { retryMs: 20, patienceMs: 300, rerun: 'execretrieval run --id x', log: () => undefined }),
      (err: unknown) => {
        assert.ok(err instanceof CliError);
        assert.equal(err.exitCode, EXIT_CODES.infra);
        assert.match(err.message, /^the Temporal server has not answered for \d+ s \(.*\); the run is kept in it: rerun `execretrieval run --id x` to wait for it again$/);
        assert.equal(err.message.split('\n').length, 1);
        return true;
      },
    );
  } finally {
    await c.close();
    await t.client.workflow.getHandle(`gone-${queues.prefix}`).terminate().catch(() => undefined);
  }
});
