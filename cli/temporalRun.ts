/**
 * How a CLI command runs a durable workflow: reach Temporal (TEMPORAL_ADDRESS, or the local dev server), serve
 * the queues with an in-process worker unless told not to, start the workflow or attach to the open one with
 * the same id (a resumed run), and stop everything it started when done or on Ctrl-C.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowResultType, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { join } from 'node:path';
import { openTemporal } from '../infra/temporal/connect.ts';
import { taskQueues, type TaskQueueKey, type TaskQueues } from '../temporal.config.ts';
import type { ActivityProvider } from '../workers/registry.ts';
import { quietRuntime, startWorkers } from '../workers/run.ts';
import { EXIT_CODES } from '../activities/faults.ts';

export interface TemporalRunOptions {
  /** Run a worker in this process (false: workers elsewhere serve the queues). */
  worker: boolean;
  /** Which queues the in-process worker serves, and (default: all) which activity providers it registers. */
  keys: readonly TaskQueueKey[];
  providers?: readonly ActivityProvider[];
  /** Serve the dev server's Web UI (when this command starts one). */
  ui: boolean;
  queuePrefix?: string;
  /** Temporal SDK log level (default: TEMPORAL_LOG_LEVEL, else WARN). */
  logLevel?: string;
  /** Where the SDK's log goes (default: the terminal); commands pass `runs/<id>/logs/temporal.log`. */
  logFile?: string;
  /** The command that continues the run, for the one line printed when the dev server is lost (default: this command line). */
  rerun?: string;
}

/**
 * The dev server this command started died under it (killed, crashed): one line with the command that continues
 * the run, exit 5, before the SDK's connections start retrying (dozens of gRPC warnings, then a stack trace).
 * The workflow's state is in the server's database: the rerun starts a server on it and the run goes on.
 */
function exitWhenServerLost(session: Awaited<ReturnType<typeof openTemporal>>, rerun: string): void {
  const server = session.devServer;
  if (!server) return;
  void server.exited.then((e) => {
    if (server.stopping()) return;
    process.stderr.write(
      `error: the Temporal dev server (pid ${server.pid}) stopped during the run (${e.signal ?? `exit ${e.code}`}); nothing is lost, its database keeps the run: rerun \`${rerun}\` to continue it\n`,
    );
    void server.stop().finally(() => process.exit(EXIT_CODES.infra));
  });
}

/** The run's file for the Temporal SDK's own log lines. */
export const temporalLogFile = (runDir: string): string => join(runDir, 'logs', 'temporal.log');

export async function withTemporal<R>(o: TemporalRunOptions, body: (client: Client, queues: TaskQueues) => Promise<R>): Promise<R> {
  const session = await openTemporal({ ui: o.ui });
  exitWhenServerLost(session, o.rerun ?? `execretrieval ${process.argv.slice(2).join(' ')}`);
  const queues = taskQueues(o.queuePrefix);
  let native: NativeConnection | undefined;
  let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
  // Each step runs whatever the one before did: a worker whose shutdown fails must not leave the dev server running.
  const stop = async () => {
    try {
      await workers?.shutdown();
    } finally {
      try {
        await native?.close();
      } finally {
        await session.close();
      }
    }
  };
  // Ctrl-C: stop cleanly; the workflow stays open in the server's database and a rerun resumes it.
  const onSignal = () => void stop().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  try {
    if (o.worker) {
      // The SDK's native runtime serves workers only: installed without one (a server that never came up), it
      // keeps the process from exiting after the error line. A native connection that fails shuts it down again.
      quietRuntime(o.logLevel, o.logFile);
      native = await NativeConnection.connect({ address: session.address });
      workers = await startWorkers({ connection: native, namespace: session.namespace, queues, keys: o.keys, providers: o.providers });
    }
    const result = await body(session.client, queues);
    process.off('SIGINT', onSignal);
    await stop();
    return result;
  } catch (err) {
    process.off('SIGINT', onSignal);
    // The command's own fault is the line the user sees; a failure while stopping after it would only hide it.
    await stop().catch(() => undefined);
    throw err;
  }
}

/**
 * Starts the workflow, or attaches to the open one with the same id (a resumed run), and waits for it;
 * `attached` says so on stderr in the command's own words.
 */
export async function startOrAttach<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  attached: (workflowId: string) => string,
  opts: { fresh?: string } = {},
): Promise<WorkflowResultType<W>> {
  // `fresh` (the reason): an open workflow with this id belongs to state this command replaced; end it, never attach.
  if (opts.fresh) {
    try {
      await client.workflow.getHandle(options.workflowId).terminate(opts.fresh);
      process.stderr.write(`ended the workflow left open by an earlier command (${options.workflowId}): ${opts.fresh}\n`);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  try {
    return await client.workflow.execute(workflow, options);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    process.stderr.write(`${attached(options.workflowId)}\n`);
    return await client.workflow.getHandle<W>(options.workflowId).result();
  }
}
