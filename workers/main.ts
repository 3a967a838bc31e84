/**
 * Shared body of the worker entry points (`workers/all.ts`, `workers/<queue>.ts`):
 * `node --import tsx workers/all.ts [--queues default,llm,exec,embed] [--prefix P] [--address A]
 * [--namespace N] [--workflow-bundle FILE] [--metrics-address host:port]`.
 * The cluster and its credentials come from Temporal's environment configuration (a temporal.toml profile,
 * TEMPORAL_* variables: infra/temporal/cluster.ts); --address and --namespace override them. A worker never starts
 * a dev server: several workers on several machines share one cluster, which is how this scales.
 * `--workflow-bundle` takes a prebuilt bundle (from `bundleWorkflowCode`) instead of bundling at start-up, which
 * costs seconds to tens of seconds on a loaded machine. `--metrics-address` (or EXECRETRIEVAL_METRICS_ADDRESS)
 * serves the SDK's metrics for Prometheus (docs/cluster.md).
 * Prints `worker ready` on stderr once polling, and stops gracefully on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { TASK_QUEUE_KEYS, taskQueues, type TaskQueueKey } from '../temporal.config.ts';
import { connectNative, describeCluster, loadClusterSettings } from '../infra/temporal/cluster.ts';
import { EXIT_CODES, StopError } from '../activities/faults.ts';
import { quietRuntime, startWorkers } from './run.ts';
import { tracing } from '../infra/temporal/tracing.ts';

export async function workerMain(argv: string[], defaultKeys: readonly TaskQueueKey[] = TASK_QUEUE_KEYS): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      queues: { type: 'string' },
      prefix: { type: 'string' },
      address: { type: 'string' },
      namespace: { type: 'string' },
      'workflow-bundle': { type: 'string' },
      'metrics-address': { type: 'string' },
    },
  });
  const loaded = loadClusterSettings(process.env);
  const settings = { ...loaded, address: values.address ?? loaded.address, namespace: values.namespace ?? loaded.namespace };
  const keys = values.queues ? parseKeys(values.queues) : defaultKeys;
  // OTEL_* variables (docs/cluster.md): a bad one refused before anything connects.
  const traced = tracing();
  const { namespace } = settings;
  const queues = taskQueues(values.prefix);
  const metrics = values['metrics-address'] ?? process.env.EXECRETRIEVAL_METRICS_ADDRESS;
  quietRuntime(undefined, undefined, metrics);
  const connection = await connectNative(settings);
  const bundlePath = values['workflow-bundle'];
  const running = await startWorkers({ connection, namespace, queues, keys, ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}) });
  const stop = () => void running.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.error(`worker ready: ${keys.map((k) => queues[k]).join(', ')} on ${describeCluster(settings)} (pid ${process.pid})${metrics ? `; metrics at http://${metrics}/metrics` : ''}`);
  try {
    await running.done;
  } finally {
    // What the exporter still holds is sent before the process ends (a graceful stop).
    await traced?.shutdown().catch(() => undefined);
    await connection.close();
  }
}

function parseKeys(s: string): TaskQueueKey[] {
  const keys = s.split(',').map((k) => k.trim()).filter(Boolean);
  for (const k of keys) {
    if (!(TASK_QUEUE_KEYS as readonly string[]).includes(k)) throw new StopError(`unknown queue "${k}" (known: ${TASK_QUEUE_KEYS.join(', ')})`, EXIT_CODES.usage);
  }
  return keys as TaskQueueKey[];
}

/**
 * How each worker entry point ends on a failure: a StopError (a bad cluster configuration or credential, an unknown
 * queue) is one line and its exit code; anything else is a bug, printed whole.
 */
export function workerFailed(err: unknown): never {
  if (err instanceof StopError) {
    console.error(`worker: ${err.message}`);
    process.exit(err.exitCode);
  }
  console.error(err);
  process.exit(1);
}
