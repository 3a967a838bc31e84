/**
 * One real Temporal dev server per test file, unique task queues per test, workers in-process or as a child
 * process (for SIGKILL tests), and teardown. Usage:
 *
 *   let t: TestTemporal;
 *   before(async () => { t = await startTestTemporal(); });
 *   after(() => t.stop());
 *   test('...', async () => { const queues = t.uniqueQueues(); await t.startWorkers({ queues }); ... });
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../infra/temporal/devServer.ts';
import { TASK_QUEUE_KEYS, taskQueues, type TaskQueueKey, type TaskQueues } from '../../temporal.config.ts';
import type { ActivityProvider, WorkerDeps } from '../../workers/registry.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { bundleWorkflows, quietRuntime, startWorkers, type RunningWorkers } from '../../workers/run.ts';

export interface TestTemporal {
  readonly address: string;
  readonly namespace: string;
  readonly server: DevServer;
  readonly client: Client;
  readonly nativeConnection: NativeConnection;
  /** Scratch directory removed at `stop()`. */
  readonly tmp: string;
  /** The workflow bundle, built once per test file (a few seconds). */
  bundle(): Promise<WorkflowBundle>;
  /** Fresh queue names; their prefix is what `spawnWorker` needs. */
  uniqueQueues(): TaskQueues & { prefix: string };
  /** In-process workers, stopped at `stop()` if the test did not stop them. */
  startWorkers(opts: {
    queues: TaskQueues;
    keys?: readonly TaskQueueKey[];
    providers?: readonly ActivityProvider[];
    deps?: Partial<WorkerDeps>;
  }): Promise<RunningWorkers>;
  /** A worker child process (`workers/all.ts`) on the queues with `prefix`; resolves once it polls. */
  spawnWorker(prefix: string, env?: Record<string, string>): Promise<ChildProcess>;
  /** Stop the server and start it again on the same port from the same database file (needs `dbFile`). */
  restartServer(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestTemporal(opts: { persistent?: boolean } = {}): Promise<TestTemporal> {
  // Expected failures (scripted 429s, gate rejections) would otherwise print a WARN with a stack each.
  quietRuntime(process.env.TEMPORAL_LOG_LEVEL ?? 'ERROR');
  const tmp = mkdtempSync(join(tmpdir(), 'execretrieval-temporal-'));
  const dbFile = opts.persistent ? join(tmp, 'temporal.db') : null;
  let server = await startDevServer({ dbFile });
  const port = Number(server.address.split(':')[1]);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  let bundlePromise: Promise<WorkflowBundle> | undefined;
  const running: RunningWorkers[] = [];
  const children: ChildProcess[] = [];

  const t: TestTemporal = {
    address: server.address,
    namespace: server.namespace,
    get server() {
      return server;
    },
    client,
    nativeConnection,
    tmp,
    bundle: () => (bundlePromise ??= bundleWorkflows()),
    uniqueQueues() {
      const prefix = `t-${randomBytes(5).toString('hex')}`;
      return { ...taskQueues(prefix), prefix };
    },
    async startWorkers(o) {
      const w = await startWorkers({
        connection: nativeConnection,
        namespace: server.namespace,
        queues: o.queues,
        keys: o.keys ?? TASK_QUEUE_KEYS,
        workflowBundle: await t.bundle(),
        providers: o.providers,
        deps: o.deps,
      });
      running.push(w);
      return w;
    },
    async spawnWorker(prefix, env = {}) {
      // The child loads the bundle this file already built instead of bundling again (tens of seconds when loaded).
      const codePath = join(tmp, 'workflow-bundle.js');
      writeFileSync(codePath, (await t.bundle()).code);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(PROJECT_ROOT, 'workers', 'all.ts'), '--prefix', prefix, '--address', server.address, '--namespace', server.namespace, '--workflow-bundle', codePath],
        { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      children.push(child);
      await waitForLine(child, /worker ready/, 120_000);
      return child;
    },
    async restartServer() {
      if (!dbFile) throw new Error('restartServer needs startTestTemporal({ persistent: true })');
      await server.stop();
      server = await startDevServer({ dbFile, port });
    },
    async stop() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      for (const w of running) await w.shutdown();
      await nativeConnection.close().catch(() => undefined);
      await connection.close().catch(() => undefined);
      await server.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
  return t;
}

/** Resolves when the child's stderr prints a line matching `re`; rejects if it exits first or on timeout. */
export function waitForLine(child: ChildProcess, re: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((res, rej) => {
    let buf = '';
    const timer = setTimeout(() => rej(new Error(`child did not print ${re} within ${timeoutMs} ms:\n${buf.slice(-3000)}`)), timeoutMs);
    const onData = (b: Buffer) => {
      buf += b.toString('utf8');
      if (re.test(buf)) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        child.stderr!.on('data', () => undefined); // keep draining so the child never blocks on a full pipe
        res(buf.split('\n').find((l) => re.test(l)) ?? buf);
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      rej(new Error(`child exited (code ${code}, signal ${sig}) before printing ${re}:\n${buf.slice(-3000)}`));
    });
  });
}
