/**
 * Temporal settings in one place: the default namespace, the task queues, and the timeouts and
 * retry policies of every class of activity.
 *
 * This module is imported by workflow code (for the activity options), so it must stay deterministic and free of
 * Node built-ins: no `process`, no `fs`. Where the cluster is and how to authenticate to it is read from Temporal's
 * own environment configuration by infra/temporal/cluster.ts.
 */
import type { ActivityOptions, RetryPolicy } from '@temporalio/common';

/** The four task queues; one worker entry per queue (`workers/`), or all of them in one process. */
export const TASK_QUEUE_KEYS = ['default', 'llm', 'exec', 'embed'] as const;
export type TaskQueueKey = (typeof TASK_QUEUE_KEYS)[number];
/** Concrete queue names. Workflows receive these in their input, so tests can use unique queues per test. */
export type TaskQueues = Record<TaskQueueKey, string>;

/** Queue names for a deployment; `prefix` isolates concurrent users of one cluster (tests, two runs side by side). */
export function taskQueues(prefix = 'execretrieval'): TaskQueues {
  return { default: `${prefix}-default`, llm: `${prefix}-llm`, exec: `${prefix}-exec`, embed: `${prefix}-embed` };
}

export const DEFAULT_NAMESPACE = 'default';

/** Local dev server defaults (used when no cluster is configured: infra/temporal/cluster.ts). */
export const DEV_SERVER = {
  /** In the state directory (`.execretrieval/`, or EXECRETRIEVAL_STATE_DIR); persistent, so a run survives a restart of the server. */
  dbFileName: 'temporal.db',
  /** On a loaded 2-core machine the dev server can take tens of seconds to answer (FACTS.md: the SDK's own 5 s is too short). */
  readyTimeoutMs: 90_000,
  logLevel: 'warn',
  /** How long a server left behind by a killed CLI gets to shut down cleanly before SIGKILL. */
  orphanGraceMs: 10_000,
} as const;

/**
 * Retry classes. Errors that must not be retried (4xx other than 429, bad input, budget exhausted) are raised
 * as `ApplicationFailure.nonRetryable` by the activity itself, so every policy below still honours them; the
 * type names are also listed so that a plain throw of one of our error classes is not retried either (workers also
 * convert every StopError and a full disk into a non-retryable InfraFault: activities/temporalFaults.ts).
 */
export const NON_RETRYABLE_ERROR_TYPES = ['NonRetryableProviderError', 'BudgetExceededError', 'InvalidInputError', 'InfraFault', 'DamagedCacheError', 'DiskFullError', 'CliError', 'StopError'];

/** Rate limits and 5xx from a provider: back off generously (a 429 burst lasts tens of seconds). */
export const PROVIDER_RETRY: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '2 minutes',
  maximumAttempts: 8,
  nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES,
};

/** Local work (oracle, files, SQLite): failures are rare and usually transient (a killed worker). */
export const LOCAL_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 5,
  nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES,
};

/**
 * Activity options per class, without `taskQueue` (workflows add the queue from their input via `activityOptions`).
 * `startToCloseTimeout` bounds one attempt; `heartbeatTimeout` notices a dead worker sooner than that for long ones.
 */
export const ACTIVITY_CLASSES = {
  /** One LLM request: reasoning models can take minutes; the heartbeat notices a killed worker long before that. */
  llm: { startToCloseTimeout: '10 minutes', heartbeatTimeout: '30 seconds', retry: PROVIDER_RETRY },
  /**
   * Gate / oracle runs over one entry or a batch of entries. The activities heartbeat every second on a timer
   * (withHeartbeat), so a killed worker's attempt is retried elsewhere within the heartbeat timeout: a resumed
   * run waits seconds for it, not minutes.
   */
  exec: { startToCloseTimeout: '30 minutes', heartbeatTimeout: '30 seconds', retry: LOCAL_RETRY },
  /** Embedding batches against providers or local models; heartbeats on a timer as exec does. */
  embed: { startToCloseTimeout: '30 minutes', heartbeatTimeout: '30 seconds', retry: PROVIDER_RETRY },
  /** Small local side effects (ledger reads/writes, files): seconds at most, so a killed worker's are retried soon. */
  default: { startToCloseTimeout: '1 minute', retry: LOCAL_RETRY },
} as const satisfies Record<TaskQueueKey, ActivityOptions>;

/**
 * The llm class for a given --provider-patience. A real-time request is one try per activity (workflows/llmCall.ts
 * retries through the workflow, each try with its ledger row first, up to the patience); the batch activities wait
 * on the provider within one activity. Either way the start-to-close outlasts the patience plus one slow request,
 * and the heartbeat still notices a dead worker within 30 s.
 */
export function llmActivityOptions(queues: TaskQueues, patienceMs: number, overrides: ActivityOptions = {}): ActivityOptions {
  return activityOptions('llm', queues, { startToCloseTimeout: patienceMs + 15 * 60_000, ...overrides });
}

/** Full options for `proxyActivities`: the class's timeouts and retry policy on the queue of the same name. */
export function activityOptions(key: TaskQueueKey, queues: TaskQueues, overrides: ActivityOptions = {}): ActivityOptions {
  return { ...ACTIVITY_CLASSES[key], taskQueue: queues[key], ...overrides };
}
