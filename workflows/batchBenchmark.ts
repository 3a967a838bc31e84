/**
 * `generate benchmark --batch`: the registry's entries generated through the provider's batch API, in rounds.
 * Round r: one batch holds every unfinished entry's next attempt (regenerations carry the gate's reasons or the
 * parse error, as on the real-time path); the workflow waits for it on a durable timer with backoff (a killed
 * worker or CLI loses nothing: the batch lives at the provider, the timer in Temporal), ingests its output and
 * error files into the ledger, then judges each answer (parse, the five gates) exactly as buildEntry does.
 * Failed or expired requests go into the next round as further tries of the same attempt (at most
 * --max-attempts). When a round has nothing to send and nothing to judge, the entries are finished and the
 * release files written by the same finalize as the real-time path.
 *
 * Kill safety lives in the activities (activities/batch/batchActivities.ts): each step is recorded in the run's
 * ledger so that a retried step never submits a round's requests twice. The workflow carries round numbers and
 * ids only; it continues as new after `roundsPerRun` rounds so a long run's history stays small.
 */
import { ActivityFailure, ApplicationFailure, continueAsNew, proxyActivities } from '@temporalio/workflow';
import { runBatchRound } from './batchRound.ts';
import type { BatchActivities, BatchTally, RoundInput } from '../activities/batch/batchActivities.ts';
import type { BatchExecActivities } from '../activities/batch/batchExecActivities.ts';
import type { DefaultActivities } from '../activities/generation/defaultActivities.ts';
import type { ExecActivities, FinalizeSummary } from '../activities/generation/execActivities.ts';
import { ACTIVITY_CLASSES, activityOptions, llmActivityOptions } from '../temporal.config.ts';
import type { BuildBenchmarkInput } from './generationTypes.ts';

export interface BatchBenchmarkInput extends Omit<BuildBenchmarkInput, 'offset' | 'tally' | 'retryRejected' | 'pageSize'> {
  /** Poll backoff: the first wait after submitting, doubling up to the cap (ms). Tests use tens of ms. */
  pollFirstMs?: number;
  pollMaxMs?: number;
  /** Rounds per workflow run before continue-as-new. */
  roundsPerRun?: number;
  /** Internal (continue-as-new): the next round, and whether the budget already refused requests. */
  round?: number;
  budgetStopped?: boolean;
}

/** Answers judged per activity call. */
const JUDGE_CHUNK = 100;

export interface BatchBenchmarkResult {
  tally: BatchTally & { rounds: number; infra_fault: string | null };
  finalize: FinalizeSummary | null;
}

export async function batchBenchmark(input: BatchBenchmarkInput): Promise<BatchBenchmarkResult> {
  // Submitting, polling and ingesting write the run's ledger and batch records: the coordinator's (the default
  // queue), with the llm class's timeouts; the work itself is at the provider, so no llm worker is needed.
  const batch = proxyActivities<BatchActivities>({ ...llmActivityOptions(input.queues, input.providerPatienceMs ?? 600_000, input.activityOverrides?.llm), taskQueue: input.queues.default });
  // The release is written where the run folder is: on the coordinator (the default queue), with the exec class's
  // timeouts; its gate over the whole set runs on the coordinator's own oracle (verdicts from its cache where it has them).
  const finalizer = proxyActivities<Pick<ExecActivities, 'finalizeBenchmark'>>(activityOptions('default', input.queues, { ...ACTIVITY_CLASSES.exec, ...input.activityOverrides?.exec }));
  // Judging reads the stored answer and writes the entry file: the coordinator's, on its own oracle (workers/registry.ts).
  const judge = proxyActivities<BatchExecActivities>(activityOptions('default', input.queues, { ...ACTIVITY_CLASSES.exec, ...input.activityOverrides?.exec }));
  const def = proxyActivities<DefaultActivities>(activityOptions('default', input.queues, input.activityOverrides?.default));
  const s = input.generator.settings;
  const base = (round: number): RoundInput => ({ runId: input.runId, runDir: input.runDir, round, source: input.source, settings: s, promptId: input.generator.promptId, maxAttempts: input.maxAttempts, budget: input.budget });
  let budgetStopped = input.budgetStopped ?? false;
  let infraFault: string | null = null;
  const first = input.round ?? 1;
  // Each attempt of each entry needs at most maxAttempts rounds (failed requests) : a hard stop against a loop.
  const lastRound = input.maxAttempts * (input.maxAttempts + 1) + 1;
  let round = first;
  for (; round <= lastRound && infraFault === null; round++) {
    if (round - first >= (input.roundsPerRun ?? 8)) {
      return continueAsNew<typeof batchBenchmark>({ ...input, round, budgetStopped });
    }
    const sub = budgetStopped ? { batch_id: null, requests: 0, budget_refused: 0 } : await runBatchRound(batch, base(round), { firstMs: input.pollFirstMs, maxMs: input.pollMaxMs });
    if (sub.budget_refused > 0) budgetStopped = true;
    const pending = await batch.pendingJudgements({ runDir: input.runDir, runId: input.runId });
    // Judged in chunks (parse, gate, write: on the coordinator, only counts come back), one activity per chunk.
    for (let i = 0; i < pending.length && infraFault === null; i += JUDGE_CHUNK) {
      try {
        await judge.judgeBatchedChunk({ runDir: input.runDir, runId: input.runId, source: input.source, profile: input.profile, settings: s, finishedAt: new Date(Date.now()).toISOString(), items: pending.slice(i, i + JUDGE_CHUNK), concurrency: input.concurrency });
      } catch (err) {
        // The oracle failed twice: no judgement; the answers stay in the ledger for the next run to gate.
        infraFault ??= failureMessage(err);
      }
    }
    if (!sub.batch_id && pending.length === 0) break;
  }
  const tally = await batch.finishEntries({ ...base(round), finishedAt: new Date(Date.now()).toISOString(), budgetStopped });
  const result = { ...tally, rounds: round - 1, infra_fault: infraFault };
  if (infraFault !== null) return { tally: result, finalize: null };
  const order = await def.registryOrder({ source: input.source });
  try {
    const finalize = await finalizer.finalizeBenchmark({
      runId: input.runId, runDir: input.runDir, profile: input.profile, order,
      source: `execretrieval-${s.provider}/${s.model}`,
      manifest: { ...input.manifest, batch: true, tally: result },
    });
    return { tally: result, finalize };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : null;
    if (!(cause instanceof ApplicationFailure && cause.type === 'InfraFault')) throw err;
    return { tally: { ...result, infra_fault: cause.message }, finalize: null };
  }
}

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return String((cause as Error)?.message ?? cause);
}
