/**
 * `execretrieval run` on Temporal: start runPipeline (or attach to the one in flight with the same settings),
 * print each stage as the workflow reaches it, and turn its failure into one line with the right exit code.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { EXIT_CODES } from '../activities/faults.ts';
import { CliError } from './errors.ts';
import { loadClusterSettings } from '../infra/temporal/cluster.ts';
import { EXECUTION_SETTINGS, pipelineProgressQuery, runPipeline, type PipelineProgress, type PipelineStart, type PipelineStop, type RunPipelineInput, type RunPipelineResult } from '../workflows/runPipeline.ts';
import type { TaskQueues } from '../temporal.config.ts';
import { startOrAttach, temporalLogFile, withTemporal } from './temporalRun.ts';
import { counter, type Counter } from './progress.ts';
import { watchEmbedProgress } from './embedProgress.ts';
import { pollQuery } from './queryPoll.ts';
import { loadRegistry } from '../activities/embeddings/configs.ts';
import { modelRoot } from '../activities/paths.ts';
import { EMBED_COORDINATOR, PIPELINE_COORDINATOR, PROJECT_ROOT } from '../workers/registry.ts';
import { runServerPlan, withRunServer } from '../infra/embedServer/forRun.ts';

export interface PipelineCliSettings {
  id: string;
  runDir: string;
  source: string;
  profile?: string;
  cap?: number;
  seed: number;
  configs?: string[];
  /** Extra embedding-registry files (`--config-file`), absolute. */
  configFiles?: string[];
  replicates?: number;
  timeout_s?: number;
  rebuild: boolean;
  from?: PipelineStart;
  until?: PipelineStop;
  /** Task queue prefix (several users of one cluster; default `execretrieval`). */
  queuePrefix?: string;
  /** Run the workers in this process (false: `--no-worker`, workers elsewhere; needs TEMPORAL_ADDRESS). */
  worker: boolean;
  /** Exec batches in flight (`--batches-in-flight`; default DEFAULT_BATCHES_IN_FLIGHT). */
  batchesInFlight?: number;
  /** embed: hosted OpenAI configurations through the Batch API (`--batch`, run file `batch`). */
  batch?: boolean;
  /** embed: `--retry-deadline` in ms (RunPipelineInput.retryDeadlineMs). */
  retryDeadlineMs?: number;
}

/**
 * Same settings, same workflow id: the same command again attaches to the run in flight (or, once it is closed,
 * runs it again over the caches). How it is carried out (batches in flight, the coordinator's queue) is not part of it.
 */
export function pipelineWorkflowId(input: Omit<RunPipelineInput, 'queues'>): string {
  const what = Object.fromEntries(Object.entries(input).filter(([k]) => !(EXECUTION_SETTINGS as readonly string[]).includes(k)));
  const key = createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 12);
  return `run-${basename(input.runDir)}-${key}`;
}

/**
 * The queue of a `run --no-worker`'s coordinator: the CLI process that started it owns runs/<id>/ and the
 * authoritative execution cache, so it serves this queue itself; workers elsewhere only run workflows, exec
 * batches and embeddings. From the run directory, so a rerun of the same command serves it again.
 */
export const coordinatorQueue = (queues: TaskQueues, runId: string): string => `${queues.default}-run-${createHash('sha256').update(runId).digest('hex').slice(0, 12)}`;

/** Exit code for a failed pipeline: the type of the ApplicationFailure at the root of the chain decides it. */
export function exitCodeOf(err: unknown): { code: number; message: string } {
  let e: unknown = err;
  let app: ApplicationFailure | null = null;
  while (e instanceof Error) {
    if (e instanceof ApplicationFailure) app = e;
    e = (e as TemporalFailure).cause;
  }
  const message = app?.message ?? (err as Error).message;
  const code = app?.type === 'NoTaskAccepted' ? EXIT_CODES.no_task_accepted
    : app?.type === 'InfraFault' ? EXIT_CODES.infra
    : app?.type === 'InvalidInputError' ? EXIT_CODES.usage
    : EXIT_CODES.failed;
  return { code, message };
}

// A stage's later passes are its rounds (the build's: mutant rounds, each after the previous round's executions
// ran on the exec queue), not retries of a failure. An execute step's batches are counted by a progress line with
// its ETA (cli/progress.ts), not by a stage line per batch. Pipelined rounds add batches while a round runs: the
// count is the progress line's, so the stage line does not change with it.
const describe = (p: PipelineProgress) =>
  p.batches_total && p.stage.includes('execute') ? `${p.stage} (round ${p.round})`
    : p.round > 1 ? `${p.stage} (${p.stage === 'build' ? 'mutant round' : 'round'} ${p.round})` : p.stage;

export async function runPipelineFromCli(s: PipelineCliSettings): Promise<RunPipelineResult> {
  if (!s.worker && !loadClusterSettings(process.env).address) {
    throw new CliError('run --no-worker: set TEMPORAL_ADDRESS (or a temporal.toml profile\'s address) to the cluster whose workers serve the queues (without it this command would start a dev server no worker serves)', EXIT_CODES.usage);
  }
  // Named configurations that only this checkout's embedding server can serve (multilingual-e5-small): the run
  // starts it for itself, for workers in this process only (remote workers could not reach 127.0.0.1 here).
  const entries = loadRegistry({ root: PROJECT_ROOT, env: process.env, files: s.configFiles }).entries;
  const penv = { env: process.env, modelRoot: modelRoot() };
  const serve = s.worker && s.until !== 'build' ? runServerPlan(entries, s.configs ?? null, penv) : null;
  return serve ? withRunServer(serve, entries, penv, (m) => process.stderr.write(`== ${m}\n`), () => runOnTemporal(s)) : runOnTemporal(s);
}

async function runOnTemporal(s: PipelineCliSettings): Promise<RunPipelineResult> {
  const temporal = {
    worker: s.worker, ui: false, keys: ['default', 'exec', 'embed'] as const, logFile: temporalLogFile(s.runDir), ...(s.queuePrefix ? { queuePrefix: s.queuePrefix } : {}),
    // --no-worker: this process is still the run's coordinator, on a queue of the run's own (workers elsewhere
    // serve the default queue without its folder). With its own workers, the default queue is the coordinator's:
    // this process and any worker beside it (same machine, same folder) can carry the run on if this one dies.
    ...(s.worker ? {} : { coordinator: { queue: (q: TaskQueues) => coordinatorQueue(q, s.runDir), providers: [PIPELINE_COORDINATOR, EMBED_COORDINATOR] } }),
  };
  return withTemporal(temporal, async (client, queues) => {
    const settings: Omit<RunPipelineInput, 'queues'> = {
      runId: s.id, runDir: s.runDir, source: s.source, seed: s.seed, configs: s.configs ?? null,
      ...(s.configFiles?.length ? { configFiles: s.configFiles } : {}),
      ...(s.profile ? { profile: s.profile } : {}), ...(s.cap ? { cap: s.cap } : {}),
      ...(s.replicates ? { replicates: s.replicates } : {}), ...(s.timeout_s ? { timeout_s: s.timeout_s } : {}),
      ...(s.from ? { from: s.from } : {}), ...(s.until ? { until: s.until } : {}), ...(s.rebuild ? { rebuild: true } : {}),
      ...(s.batchesInFlight ? { batchesInFlight: s.batchesInFlight } : {}), ...(s.batch ? { batch: true } : {}),
      ...(s.retryDeadlineMs ? { retryDeadlineMs: s.retryDeadlineMs } : {}),
    };
    const workflowId = pipelineWorkflowId(settings);
    process.stderr.write(`== run ${s.id}: workflow ${workflowId} (${join(s.runDir, 'manifest.json')} records each stage)\n`);
    // Each stage once as the workflow reaches it, and its notes (a query every second: the workflow's state, not this process's).
    let last = '';
    let printed = 0;
    let batches: { key: string; count: Counter } | null = null;
    const endBatches = () => batches?.count.done();
    // The embed stage's own progress, in texts, from its child workflow (runPipeline names it <id>-embed).
    // Its last query must end before the connection closes (grpc-js throws from a timer otherwise): every stop is
    // chained here and the chain awaited in `finally`.
    let embedding: { stop: () => Promise<void> } | null = null;
    let stopped: Promise<void> = Promise.resolve();
    const endEmbedding = () => {
      const e = embedding;
      embedding = null;
      if (e) stopped = stopped.then(() => e.stop());
      return stopped;
    };
    const show = (p: PipelineProgress) => {
      const line = describe(p);
      if (line !== last) endBatches();
      for (; printed < p.notes.length; printed++) process.stderr.write(`== ${p.notes[printed]}\n`);
      if (line !== last && p.stage !== 'start' && p.stage !== 'done') process.stderr.write(`== ${line}\n`);
      last = line;
      if (p.batches_total && p.stage.includes('execute')) {
        if (batches?.key !== line) batches = { key: line, count: counter('   executing: batches') };
        batches.count(p.batches_done, p.batches_total);
      }
      if (p.stage === 'embed') embedding ??= watchEmbedProgress(client, `${workflowId}-embed`);
      else void endEmbedding();
    };
    const progress = pollQuery(client, workflowId, pipelineProgressQuery, show);
    try {
      const input: RunPipelineInput = { queues, ...settings, ...(s.worker ? {} : { coordinatorQueue: coordinatorQueue(queues, s.runDir) }) };
      const result = await startOrAttach(client, runPipeline, { taskQueue: queues.default, workflowId, args: [input] }, (id) => `continuing the run already in flight (${id})`);
      await progress.ask();
      endBatches();
      return result;
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const { code, message } = exitCodeOf(err);
        await progress.ask();
        throw new CliError(`${message}${code === EXIT_CODES.infra ? ' (then rerun the same command: it continues the run)' : ''}`, code);
      }
      throw err;
    } finally {
      await progress.stop();
      await endEmbedding();
    }
  });
}
