/**
 * What the workers register, in one explicit list (no directory scanning: a reader sees exactly what runs where).
 *
 * - Workflows: every export of `workflows/index.ts`, registered on the `default` queue.
 * - Activities: `ACTIVITY_PROVIDERS`, each a factory for one queue. To add activities, add ONE line to the list.
 *   A factory receives the worker's dependencies and may open resources (a database, the oracle); it returns the
 *   activity functions and an optional `close` called when the worker stops.
 */
import { join } from 'node:path';
import type { TaskQueueKey } from '../temporal.config.ts';
import { createHealthActivities } from '../infra/temporal/healthActivities.ts';
import { createEmbedCoordinator } from '../activities/embeddings/sweepActivities.ts';
import { createEmbedSendActivities } from '../activities/embeddings/sendActivities.ts';
import { createDefaultActivities } from '../activities/generation/defaultActivities.ts';
import { createExecActivities } from '../activities/generation/execActivities.ts';
import { createLlmActivities } from '../activities/generation/llmActivities.ts';
import { createBatchActivities } from '../activities/batch/batchActivities.ts';
import { closeBatchStores } from '../activities/batch/store.ts';
import { createBatchExecActivities } from '../activities/batch/batchExecActivities.ts';
import { closeLedgers } from '../activities/ledger/ledger.ts';
import { createPipelineCoordinator, createPipelineExecActivities } from '../activities/pipeline/pipelineActivities.ts';
import { projectRoot } from '../activities/paths.ts';
import { openOracle } from '../activities/exec/oracle.ts';
import type { Oracle } from '../activities/exec/types.ts';

export const PROJECT_ROOT = projectRoot();
export const WORKFLOWS_PATH = join(PROJECT_ROOT, 'workflows', 'index.ts');

export interface WorkerDeps {
  /** Project root: activities resolve `runs/`, `.execretrieval/`, `data/` against it. */
  root: string;
  env: Readonly<Record<string, string | undefined>>;
  log: (msg: string) => void;
}

// Activity functions have heterogeneous signatures; the worker only needs them to be callable.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ActivityFunctions = Record<string, (...args: any[]) => Promise<unknown>>;

export interface ActivityBundle {
  activities: ActivityFunctions;
  close?: () => Promise<void> | void;
}

export interface ActivityProvider {
  queue: TaskQueueKey;
  /** For logs and error messages. */
  name: string;
  create: (deps: WorkerDeps) => Promise<ActivityBundle> | ActivityBundle;
}

const health = (queue: TaskQueueKey): ActivityProvider => ({
  queue,
  name: `health:${queue}`,
  create: () => ({ activities: createHealthActivities(queue) }),
});

/** The execution oracle (sandbox pool + cache) is opened on first use by an exec activity and closed with the worker. */
function lazyOracle(): { get: () => Promise<Oracle>; close: () => Promise<void> } {
  let p: Promise<Oracle> | null = null;
  return {
    get: () => (p ??= openOracle()),
    close: async () => {
      // An oracle that failed to open (a damaged cache) has nothing to close: its error was the activity's, and
      // rethrown here it stopped the worker's shutdown before the dev server was stopped (issue 26).
      const o = p ? await p.catch(() => null) : null;
      p = null;
      await o?.close();
    },
  };
}

/**
 * What owns a run's folder and its authoritative execution cache (activities/pipeline/pipelineActivities.ts): on
 * the default queue for workers that serve it, and alone on a run's own queue in the CLI that started the run
 * (cli/pipelineRun.ts), with or without --no-worker.
 */
export const PIPELINE_COORDINATOR: ActivityProvider = { queue: 'default', name: 'pipeline:coordinator', create: () => createPipelineCoordinator() };

/**
 * The embedding sweep's coordinator side (plan, reserve, store, matrices, report, the Batch API): it owns the run
 * folder, the embedding cache and the run's ledger, so it sits beside PIPELINE_COORDINATOR.
 */
export const EMBED_COORDINATOR: ActivityProvider = {
  queue: 'default',
  name: 'embeddings:coordinator',
  create: (d) => { const a = createEmbedCoordinator(d); return { activities: a, close: a.closeEmbedCoordinator }; },
};

export const ACTIVITY_PROVIDERS: ActivityProvider[] = [
  health('default'),
  health('llm'),
  health('exec'),
  health('embed'),
  // Sends only: texts in, vectors out, no run folder (activities/embeddings/sendActivities.ts).
  { queue: 'embed', name: 'embeddings', create: (d) => { const a = createEmbedSendActivities(d); return { activities: a, close: a.closeEmbedSend }; } },
  EMBED_COORDINATOR,
  { queue: 'default', name: 'generation:default', create: () => ({ activities: createDefaultActivities(), close: closeLedgers }) },
  { queue: 'llm', name: 'generation:llm', create: (d) => ({ activities: createLlmActivities({ env: d.env }) }) },
  // The Batch API's rounds write the run's ledger and batch records: the coordinator's, beside the run folder.
  { queue: 'default', name: 'generation:batch', create: (d) => ({ activities: createBatchActivities({ env: d.env }), close: closeBatchStores }) },
  {
    queue: 'exec',
    name: 'generation:exec',
    // The generation and pipeline exec activities share one oracle (one sandbox pool, one cache handle): two would double the fork servers.
    create: () => {
      const oracle = lazyOracle();
      return { activities: { ...createExecActivities({ oracle: oracle.get }), ...createPipelineExecActivities({ oracle: oracle.get }) }, close: oracle.close };
    },
  },
  PIPELINE_COORDINATOR,
  {
    queue: 'default',
    name: 'generation:finalize',
    // What reads and writes the run's entries and ledger beside the gate is the coordinator's, on an oracle of its
    // own (opened on first use): finalising (the release files) and judging a batch's answers (the stored answer
    // in, the entry file out). The real-time path's gate needs no folder and stays on the exec queue.
    create: () => {
      const oracle = lazyOracle();
      return { activities: { finalizeBenchmark: createExecActivities({ oracle: oracle.get }).finalizeBenchmark, ...createBatchExecActivities({ oracle: oracle.get }) }, close: oracle.close };
    },
  },
];
