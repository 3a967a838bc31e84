/** Inputs of the generation workflows (types only: safe to import from workflow code and from the CLI). */
import type { LlmSettings, RegistryEntry } from '../core/generation/types.ts';
import type { Budget } from '../activities/generation/callReservations.ts';
import type { EntrySource } from '../activities/generation/defaultActivities.ts';
import type { ActivityOptions } from '@temporalio/common';
import type { TaskQueueKey, TaskQueues } from '../temporal.config.ts';

/** Per-class overrides of temporal.config.ts's activity options (tests shorten heartbeat timeouts with it). */
export type ActivityOverrides = Partial<Record<TaskQueueKey, ActivityOptions>>;

/**
 * An LLM generator. (The mutation engine over tasks that already have canonical and tests, `--generator
 * mechanical`, is the pipeline's build stage: runPipeline with `until: 'build'`, not an entry workflow.)
 */
export type GeneratorSpec = { kind: 'llm'; settings: LlmSettings; promptId: string };

export interface BuildEntryInput {
  runId: string;
  /** Absolute path of runs/<run-id>/ on the coordinator (the default queue's workers); llm and exec workers never read it. */
  runDir: string;
  entry: RegistryEntry;
  generator: GeneratorSpec;
  /** Attempts in total for this entry, counting those a previous run already made. */
  maxAttempts: number;
  profile: string;
  queues: TaskQueues;
  budget?: Budget;
  /** How long one attempt keeps retrying provider errors (--provider-patience, ms). */
  providerPatienceMs?: number;
  activityOverrides?: ActivityOverrides;
}

export interface BuildBenchmarkInput {
  runId: string;
  runDir: string;
  source: EntrySource;
  generator: GeneratorSpec;
  maxAttempts: number;
  profile: string;
  queues: TaskQueues;
  budget?: Budget;
  providerPatienceMs?: number;
  /** Children in flight at once. */
  concurrency: number;
  /** Entries per workflow run; after each page the workflow continues as new (bounded history). */
  pageSize: number;
  /** Also redo entries that ended `rejected` (default: only missing, budget-stopped and provider-failed ones). */
  retryRejected?: boolean;
  activityOverrides?: ActivityOverrides;
  /** Written into manifest.json (generator settings, prompt, versions). */
  manifest: Record<string, unknown>;
  /** Internal: where this run of the workflow starts, and the tally so far (continue-as-new carries them). */
  offset?: number;
  tally?: BenchmarkTally;
}

export interface BenchmarkTally {
  total: number;
  skipped: number;
  accepted: number;
  rejected: number;
  budget_exhausted: number;
  provider_error: number;
  /** Entries stopped by an oracle/cache fault (or a child workflow that failed): never judged, redone by a rerun. */
  infra_error: number;
  /** The first fault's one-line message (names the file and the fix); set once, stops new entries. */
  infra_fault: string | null;
  /** Registry lines that could not be read (first page only). */
  bad_records: string[];
  budget_stopped: boolean;
  pages: number;
}

export interface GenerateRegistryInput {
  runId: string;
  runDir: string;
  settings: LlmSettings;
  promptId: string;
  domains: string[];
  perDomain: number;
  /** Attempts per domain when the response does not parse or has the wrong shape. */
  maxAttempts: number;
  queues: TaskQueues;
  budget?: Budget;
  providerPatienceMs?: number;
  nearDuplicateThreshold?: number;
  activityOverrides?: ActivityOverrides;
}

/** Deterministic child workflow id: rerunning a run id finds (and skips) the same entries. */
export function entryWorkflowId(runId: string, entryId: string): string {
  return `${runId}/entry/${entryId}`;
}

export function benchmarkWorkflowId(runId: string): string {
  return `${runId}/benchmark`;
}

export function registryWorkflowId(runId: string): string {
  return `${runId}/registry`;
}
