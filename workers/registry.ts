/**
 * What the workers register, in one explicit list (no directory scanning: a reader sees exactly what runs where).
 *
 * - Workflows: every export of `workflows/index.ts`, registered on the `default` queue.
 * - Activities: `ACTIVITY_PROVIDERS`, each a factory for one queue. To add activities, add ONE line to the list.
 *   A factory receives the worker's dependencies and may open resources (a database, the oracle); it returns the
 *   activity functions and an optional `close` called when the worker stops.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskQueueKey } from '../temporal.config.ts';
import { createHealthActivities } from '../infra/temporal/healthActivities.ts';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
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

export const ACTIVITY_PROVIDERS: ActivityProvider[] = [
  health('default'),
  health('llm'),
  health('exec'),
  health('embed'),
];
