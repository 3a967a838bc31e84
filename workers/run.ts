/**
 * Runs one Worker per requested task queue in this process, sharing one connection and one workflow bundle.
 * The per-queue entry points (`workers/<queue>.ts`) and the all-in-one worker (`workers/all.ts`) call this, and so
 * do the tests (with unique queue names and, where a test needs it, their own activity providers).
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { availableParallelism } from 'node:os';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, NativeConnection, Runtime, Worker, type LogLevel, type WorkflowBundle, type WorkflowBundleOption } from '@temporalio/worker';
import { IllegalStateError } from '@temporalio/common';
import type { TaskQueueKey, TaskQueues } from '../temporal.config.ts';
import { EXIT_CODES, StopError } from '../activities/faults.ts';
import { fatalFaultInterceptor } from '../activities/temporalFaults.ts';
import { tracing, workflowTracingModules } from '../infra/temporal/tracing.ts';
import { ACTIVITY_PROVIDERS, PROJECT_ROOT, WORKFLOWS_PATH, type ActivityBundle, type ActivityProvider, type WorkerDeps } from './registry.ts';

export interface StartWorkersOptions {
  connection: NativeConnection;
  namespace: string;
  queues: TaskQueues;
  /** Which queues this process serves. Workflows run on `default`, so it must be among them for workflows. */
  keys: readonly TaskQueueKey[];
  /** Prebuilt bundle, as code or a file path (tests bundle once per file); default: bundled now from `workflows/index.ts`. */
  workflowBundle?: WorkflowBundleOption;
  providers?: readonly ActivityProvider[];
  deps?: Partial<WorkerDeps>;
  /** Passed through to every Worker (default: the SDK's, except on exec: EXEC_ACTIVITY_SLOTS). */
  maxConcurrentActivityTaskExecutions?: number;
  /** Register the workflows on the default queue (default: when `default` is among the keys); false for a coordinator-only worker. */
  workflows?: boolean;
}

/**
 * Exec activities a worker takes at once: a batch keeps its sandbox pool (one child per core) busy, and two per
 * core leave one waiting while the other runs. Without a bound a worker polls every batch in flight into its own
 * slots (the SDK allows 100) while another machine's worker idles.
 */
export const EXEC_ACTIVITY_SLOTS = Math.max(2, 2 * availableParallelism());

export interface RunningWorkers {
  /** Resolves when every worker has stopped; rejects if one fails. */
  done: Promise<void>;
  /** Graceful stop of every worker, then the activity bundles' `close`. */
  shutdown(): Promise<void>;
}

export async function bundleWorkflows(): Promise<WorkflowBundle> {
  // The SDK's webpack output is chatty at info level; warnings and errors still surface.
  const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error };
  // Traced (OTEL_* variables), the workflows' own spans come from interceptors that must be in the bundle.
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger, webpackConfigHook: compileOwnTypeScript, workflowInterceptorModules: workflowTracingModules() });
}

/**
 * The SDK's webpack rule compiles .ts files except under node_modules; an installed CLI (`npm install -g`) lives
 * under node_modules itself, and its workflows then failed to bundle ("Module parse failed"). Our own files
 * compile wherever the package is; its dependencies' stay excluded.
 */
export function compileOwnTypeScript<C extends { module?: { rules?: unknown[] } }>(config: C): C {
  for (const rule of config.module?.rules ?? []) {
    const r = rule as { test?: unknown; exclude?: unknown };
    if (String(r.test) !== String(/\.ts$/)) continue;
    r.exclude = (path: string) => {
      const rel = relative(PROJECT_ROOT, path);
      return rel.startsWith('..') ? path.split(sep).includes('node_modules') : rel.split(sep).includes('node_modules');
    };
  }
  return config;
}

/**
 * The SDK logs every worker state change at INFO; keep WARN and above (TEMPORAL_LOG_LEVEL overrides). With
 * `logFile`, the SDK's log (its native core's too) goes to that file instead of the terminal: a CLI run's
 * terminal shows the run's own progress, and `runs/<id>/logs/temporal.log` keeps the SDK's warnings. With
 * `metricsAddress` (host:port; opt-in: `--metrics-address` or EXECRETRIEVAL_METRICS_ADDRESS), the SDK's runtime
 * metrics (slots, pollers, latencies, schedule-to-start: docs/cluster.md) are served for Prometheus at
 * http://host:port/metrics. The runtime can be installed once per process and only before the first connection,
 * so later calls are no-ops.
 */
export function quietRuntime(level = process.env.TEMPORAL_LOG_LEVEL ?? 'WARN', logFile?: string, metricsAddress = process.env.EXECRETRIEVAL_METRICS_ADDRESS || undefined): void {
  const lvl = level.toUpperCase() as LogLevel;
  const metrics = metricsAddress ? { metrics: { prometheus: { bindAddress: metricsAddress } } } : {};
  let logger = new DefaultLogger(lvl);
  if (logFile) {
    try {
      mkdirSync(dirname(logFile), { recursive: true });
    } catch {
      /* the logger below cannot write then, and says so once */
    }
    const bigints = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
    let lost = false;
    logger = new DefaultLogger(lvl, (e) => {
      const when = new Date(Number(e.timestampNanos / 1_000_000n)).toISOString();
      try {
        appendFileSync(logFile, `${when} [${e.level}] ${e.message}${e.meta && Object.keys(e.meta).length ? ` ${JSON.stringify(e.meta, bigints)}` : ''}\n`);
      } catch (err) {
        // Called from the SDK's timer: a throw here is an uncaught exception that kills the process with a stack
        // (a full disk did exactly that). The SDK's log is not the run's result; its lines are dropped, said once.
        if (!lost) process.stderr.write(`${logFile}: cannot write the Temporal SDK's log (${(err as { code?: string }).code ?? (err as Error).message}); its lines are dropped\n`);
        lost = true;
      }
    });
  }
  try {
    Runtime.install({ logger, telemetryOptions: { ...(logFile ? { logging: { filter: makeTelemetryFilterString({ core: lvl }), forward: {} } } : {}), ...metrics } });
  } catch (err) {
    if (err instanceof IllegalStateError || !metricsAddress) return; // already installed, or (as ever) the SDK's defaults
    // An address that cannot be bound (taken, not local): the operator asked for metrics, so never run without them.
    throw new StopError(`metrics address ${metricsAddress}: ${(err as Error).message.split('\n')[0]}`, EXIT_CODES.infra);
  }
}

export async function startWorkers(opts: StartWorkersOptions): Promise<RunningWorkers> {
  const deps: WorkerDeps = { root: PROJECT_ROOT, env: process.env, log: (m) => console.error(m), ...opts.deps };
  const providers = opts.providers ?? ACTIVITY_PROVIDERS;
  const needsWorkflows = opts.workflows ?? opts.keys.includes('default');
  const workflowBundle = needsWorkflows ? (opts.workflowBundle ?? (await bundleWorkflows())) : undefined;
  const traced = tracing();

  const bundles: ActivityBundle[] = [];
  const workers: Worker[] = [];
  try {
    for (const key of opts.keys) {
      const activities = {};
      for (const p of providers.filter((q) => q.queue === key)) {
        const b = await p.create(deps);
        bundles.push(b);
        for (const name of Object.keys(b.activities)) {
          if (name in activities) throw new Error(`activity "${name}" registered twice on queue ${key} (provider ${p.name})`);
        }
        Object.assign(activities, b.activities);
      }
      workers.push(
        await Worker.create({
          connection: opts.connection,
          namespace: opts.namespace,
          taskQueue: opts.queues[key],
          activities,
          ...(key === 'default' && needsWorkflows ? { workflowBundle } : {}),
          ...(opts.maxConcurrentActivityTaskExecutions ? { maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions }
            : key === 'exec' ? { maxConcurrentActivityTaskExecutions: EXEC_ACTIVITY_SLOTS } : {}),
          shutdownGraceTime: '5 seconds',
          // A damaged cache, a full disk, a bad configuration: failed at once, never retried (activities/temporalFaults.ts).
          // Traced: each activity's span, a child of the workflow's StartActivity span (infra/temporal/tracing.ts).
          interceptors: { activity: [fatalFaultInterceptor, ...(traced?.activityInterceptors ?? [])] },
          ...(traced ? { sinks: traced.sinks } : {}),
          // Cancellation reaches an activity only in a heartbeat's answer, and heartbeats are throttled to 0.8 × the
          // heartbeat timeout (24 s for ours) unless capped: a cancelled batch (its configuration failed) stops within ~2 s.
          maxHeartbeatThrottleInterval: '2 seconds',
        }),
      );
    }
  } catch (err) {
    await closeAll(bundles);
    throw err;
  }
  const done = Promise.all(workers.map((w) => w.run())).then(() => undefined);
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done.catch(() => undefined);
      await closeAll(bundles);
    })());
  return { done, shutdown };
}

/** Closes every bundle, even after one fails to (the first failure is rethrown once all have been tried). */
async function closeAll(bundles: ActivityBundle[]): Promise<void> {
  let first: unknown = null;
  for (const b of bundles) {
    try {
      await b.close?.();
    } catch (err) {
      first ??= err;
    }
  }
  if (first !== null) throw first;
}
