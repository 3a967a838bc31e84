/**
 * How a CLI command runs a durable workflow: reach Temporal (TEMPORAL_ADDRESS, or the local dev server), serve
 * the queues with an in-process worker unless told not to, start the workflow or attach to the open one with
 * the same id (a resumed run), and stop everything it started when done or on Ctrl-C.
 */
import { ServiceError, WorkflowExecutionAlreadyStartedError, type Client, type WorkflowResultType, type WorkflowStartOptions } from '@temporalio/client';
import { WorkflowNotFoundError, type Workflow } from '@temporalio/common';
import { CliError } from './errors.ts';
import type { NativeConnection } from '@temporalio/worker';
import { dirname, join } from 'node:path';
import { watchRoom } from '../activities/storage/diskRoom.ts';
import { openTemporal } from '../infra/temporal/connect.ts';
import { connectNative } from '../infra/temporal/cluster.ts';
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
  /**
   * A queue this process serves whatever `worker` says, with these activities only (no workflows): the run's
   * coordinator, which owns its folder and authoritative cache (cli/pipelineRun.ts). Named from the queues.
   */
  coordinator?: { queue: (queues: TaskQueues) => string; providers: readonly ActivityProvider[] };
}

/**
 * The dev server this command started died under it (killed, crashed): one line with the command that continues
 * the run, exit 5, before the SDK's connections start retrying (dozens of gRPC warnings, then a stack trace).
 * The workflow's state is in the server's database: the rerun starts a server on it and the run goes on.
 */
function exitWhenServerLost(session: Awaited<ReturnType<typeof openTemporal>>, rerun: string, interrupted: () => boolean): void {
  const server = session.devServer;
  if (!server) return;
  void server.exited.then((e) => {
    // Ctrl-C reaches the server too (one process group): its exit then is the interrupt's, not a lost server
    // (issue 37: Ctrl-C 20 s into `run` exited 5 blaming the dev server).
    if (server.stopping() || interrupted()) return;
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
  let interrupted = false;
  exitWhenServerLost(session, o.rerun ?? `execretrieval ${process.argv.slice(2).join(' ')}`, () => interrupted);
  const queues = taskQueues(o.queuePrefix);
  let native: NativeConnection | undefined;
  let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
  let coordinator: Awaited<ReturnType<typeof startWorkers>> | undefined;
  // Each step runs whatever the one before did: a worker whose shutdown fails must not leave the dev server running.
  const stop = async () => {
    try {
      await workers?.shutdown();
    } finally {
      try {
        await coordinator?.shutdown();
      } finally {
        try {
          await native?.close();
        } finally {
          await session.close();
        }
      }
    }
  };
  // The command ends early (Ctrl-C, a full disk): stop what it started, then exit with `code`. A client call in
  // flight (the progress query, the result's long poll) retries on a timer and throws once its channel is closed:
  // that is the teardown's noise, not a fault to print with a stack trace after the one line already printed.
  const endEarly = (code: number, waitAtMostMs?: number) => {
    process.on('uncaughtException', () => undefined);
    if (waitAtMostMs) setTimeout(() => process.exit(code), waitAtMostMs).unref();
    void stop().finally(() => process.exit(code));
  };
  // Ctrl-C: stop cleanly; the workflow stays open in the server's database and a rerun resumes it.
  const onSignal = () => {
    interrupted = true;
    endEarly(130);
  };
  process.once('SIGINT', onSignal);
  // The dev server's disk filling up mid-run: one line naming the folder, exit 5, within seconds (diskRoom.ts).
  const dbFile = session.devServer?.dbFile;
  const unwatch = dbFile
    ? watchRoom(dirname(dbFile), (err) => {
        process.stderr.write(`error: ${err.message}\n`);
        // Stopping may itself wait on a write the full disk stalls: the exit does not wait for it past a few seconds.
        endEarly(EXIT_CODES.infra, 5_000);
      })
    : () => {};
  try {
    if (o.worker || o.coordinator) {
      // The SDK's native runtime serves workers only: installed without one (a server that never came up), it
      // keeps the process from exiting after the error line. A native connection that fails shuts it down again.
      quietRuntime(o.logLevel, o.logFile);
      native = await connectNative(session.settings, session.address);
    }
    if (o.worker) workers = await startWorkers({ connection: native!, namespace: session.namespace, queues, keys: o.keys, providers: o.providers });
    if (o.coordinator) {
      coordinator = await startWorkers({
        connection: native!, namespace: session.namespace, queues: { ...queues, default: o.coordinator.queue(queues) }, keys: ['default'], providers: o.coordinator.providers, workflows: false,
      });
    }
    const result = await body(session.client, queues);
    process.off('SIGINT', onSignal);
    unwatch();
    await stop();
    return result;
  } catch (err) {
    process.off('SIGINT', onSignal);
    unwatch();
    // The command's own fault is the line the user sees; a failure while stopping after it would only hide it.
    await stop().catch(() => undefined);
    throw err;
  }
}

/** How long the server may stay unreachable before the command gives up waiting (the run itself goes on in it). */
export const SERVER_GONE_MS = 5 * 60_000;

export interface WaitOptions {
  /** The command that waits for the run again, for the one line printed when the server is gone. */
  rerun?: string;
  /** Unreachable this long, the server is gone (default SERVER_GONE_MS). */
  patienceMs?: number;
  /** Pause between two tries (default 2 s). */
  retryMs?: number;
  log?: (line: string) => void;
}

/** An error that says nothing about the run, only that the server did not answer this call (under load: "Failed to get Workflow execution history"). */
const transient = (err: unknown): boolean => err instanceof ServiceError && !(err instanceof WorkflowNotFoundError);

/**
 * The workflow's result, waiting through a server that does not answer for a while: a failed call is tried again
 * (the run goes on in the server meanwhile); only the run's own failure, or a server unreachable for
 * `patienceMs`, ends the wait — the latter with one line, the command that waits again, and exit 5.
 */
export async function waitForResult<W extends Workflow>(client: Client, workflowId: string, o: WaitOptions = {}): Promise<WorkflowResultType<W>> {
  const handle = client.workflow.getHandle<W>(workflowId);
  const patience = o.patienceMs ?? SERVER_GONE_MS;
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let since: number | null = null;
  let said = false;
  for (;;) {
    try {
      return await handle.result();
    } catch (err) {
      if (!transient(err)) throw err;
      const now = Date.now();
      // One line for the terminal, not one per try.
      if (!said) log(`== the Temporal server did not answer (${(err as Error).message}); waiting for it (the run goes on there)`);
      said = true;
      since ??= now;
      // A server that answers anything is there: the wait starts over from here.
      try {
        await handle.describe();
        since = null;
      } catch (e) {
        if (!transient(e)) throw e;
      }
      if (since !== null && now - since >= patience) {
        const rerun = o.rerun ?? `execretrieval ${process.argv.slice(2).join(' ')}`;
        throw new CliError(`the Temporal server has not answered for ${Math.round((now - since) / 1000)} s (${(err as Error).message}); the run is kept in it: rerun \`${rerun}\` to wait for it again`, EXIT_CODES.infra);
      }
      await new Promise((r) => setTimeout(r, o.retryMs ?? 2_000));
    }
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
  /** `fresh` (the reason): end an open workflow with this id instead of attaching to it; the rest: how to wait. */
  opts: { fresh?: string } & WaitOptions = {},
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
    await client.workflow.start(workflow, options);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    process.stderr.write(`${attached(options.workflowId)}\n`);
  }
  return waitForResult<W>(client, options.workflowId, opts);
}
