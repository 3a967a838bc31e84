/**
 * Shared body of the worker entry points (`workers/all.ts`, `workers/<queue>.ts`):
 * `node --import tsx workers/all.ts [--queues default,llm,exec,embed] [--prefix P] [--address A]
 * [--namespace N] [--workflow-bundle FILE]`. `--workflow-bundle` takes a prebuilt bundle (from `bundleWorkflowCode`)
 * instead of bundling at start-up, which costs seconds to tens of seconds on a loaded machine. Without --address it uses TEMPORAL_ADDRESS (a worker never starts a dev server: several
 * workers on several machines share one cluster, which is how this scales).
 * Prints `worker ready` on stderr once polling, and stops gracefully on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { NativeConnection } from '@temporalio/worker';
import { resolveTemporalTarget, TASK_QUEUE_KEYS, taskQueues, type TaskQueueKey } from '../temporal.config.ts';
import { quietRuntime, startWorkers } from './run.ts';

export async function workerMain(argv: string[], defaultKeys: readonly TaskQueueKey[] = TASK_QUEUE_KEYS): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      queues: { type: 'string' },
      prefix: { type: 'string' },
      address: { type: 'string' },
      namespace: { type: 'string' },
      'workflow-bundle': { type: 'string' },
    },
  });
  const target = resolveTemporalTarget(process.env);
  const address = values.address ?? target.address;
  if (!address) throw new Error('worker: no cluster address (set TEMPORAL_ADDRESS or pass --address host:port)');
  const keys = values.queues ? parseKeys(values.queues) : defaultKeys;
  const namespace = values.namespace ?? target.namespace;
  const queues = taskQueues(values.prefix);
  quietRuntime();
  const connection = await NativeConnection.connect({ address });
  const bundlePath = values['workflow-bundle'];
  const running = await startWorkers({ connection, namespace, queues, keys, ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}) });
  const stop = () => void running.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.error(`worker ready: ${keys.map((k) => queues[k]).join(', ')} on ${address}/${namespace} (pid ${process.pid})`);
  try {
    await running.done;
  } finally {
    await connection.close();
  }
}

function parseKeys(s: string): TaskQueueKey[] {
  const keys = s.split(',').map((k) => k.trim()).filter(Boolean);
  for (const k of keys) {
    if (!(TASK_QUEUE_KEYS as readonly string[]).includes(k)) throw new Error(`worker: unknown queue "${k}" (known: ${TASK_QUEUE_KEYS.join(', ')})`);
  }
  return keys as TaskQueueKey[];
}
