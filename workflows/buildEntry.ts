/**
 * One registry entry: generate → the five gates → on rejection regenerate with the gate's reasons (or the parse
 * error) in the prompt, up to `maxAttempts`. Ends accepted or rejected with its full attempt history, written
 * to runs/<run>/entries/<id>.json. A budget stop, an exhausted provider retry or an oracle/cache fault ends the
 * entry as `budget_exhausted` / `provider_error` / `infra_error` without consuming the attempt: a rerun of the
 * same run makes that attempt again, judging the response the ledger already holds instead of paying for it.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { DefaultActivities } from '../activities/generation/defaultActivities.ts';
import type { ExecActivities } from '../activities/generation/execActivities.ts';
import type { GenerateOutcome } from '../activities/generation/callReservations.ts';
import type { AttemptSummary, EntryResult, EntryStatus } from '../core/generation/types.ts';
import type { Task } from '../schemas/task.ts';
import { activityOptions } from '../temporal.config.ts';
import { DEFAULT_PROVIDER_PATIENCE_MS } from '../core/generation/patience.ts';
import type { BuildEntryInput } from './generationTypes.ts';
import { failureMessage } from './llmCall.ts';
import { generationCalls } from './llmCallPorts.ts';

export async function buildEntry(input: BuildEntryInput): Promise<EntryResult> {
  const def = proxyActivities<DefaultActivities>(activityOptions('default', input.queues, input.activityOverrides?.default));
  const patience = input.providerPatienceMs ?? DEFAULT_PROVIDER_PATIENCE_MS;
  const calls = generationCalls({ queues: input.queues, patienceMs: patience, overrides: input.activityOverrides, budget: input.budget });
  const exec = proxyActivities<ExecActivities>(activityOptions('exec', input.queues, input.activityOverrides?.exec));
  const { entry, generator } = input;

  const start = await def.entryStartState({ runDir: input.runDir, runId: input.runId, entryId: entry.entry_id });
  // Full history across reruns: the judged attempts earlier runs made, then ours.
  const attempts: AttemptSummary[] = [...start.previousAttempts];
  let feedback = start.lastRejection ? { previous_attempt: start.lastRejection.attempt_no, reasons: start.lastRejection.reasons } : undefined;
  let status: EntryStatus = 'rejected';
  let task: Task | null = null;

  for (let n = start.nextAttempt; n <= input.maxAttempts; n++) {
    let gen: GenerateOutcome;
    try {
      gen = await calls.entry({
        runId: input.runId, runDir: input.runDir, attemptNo: n,
        settings: generator.settings, promptId: generator.promptId, request: { kind: 'entry', entry, feedback },
      });
    } catch (err) {
      const stop = unfinished(err);
      status = stop.status;
      attempts.push(summary(n, stop.outcome, [stop.message], null));
      break;
    }
    if (!gen.ok) {
      attempts.push(summary(n, 'parse_error', [gen.error], gen));
      feedback = { previous_attempt: n, reasons: [gen.error] };
      continue;
    }
    let gate: Awaited<ReturnType<typeof exec.gateTask>>;
    try {
      // The gate runs where the sandbox is (no run folder there); its verdict is judged in the ledger here.
      gate = await exec.gateTask({ task: gen.task, profile: input.profile });
      await calls.judgeAttempt({ runDir: input.runDir, runId: input.runId, entryId: entry.entry_id, attemptNo: n, accepted: gate.accepted, reasons: gate.reasons });
    } catch (err) {
      // Only an InfraFault is expected here; anything else the exec policy gave up on is no judgement either.
      status = 'infra_error';
      attempts.push(summary(n, 'infra_error', [failureMessage(err)], gen));
      break;
    }
    attempts.push(summary(n, gate.accepted ? 'accepted' : 'rejected', gate.reasons, gen));
    if (gate.accepted) {
      status = 'accepted';
      task = gate.task;
      break;
    }
    feedback = { previous_attempt: n, reasons: gate.reasons };
  }

  const result: EntryResult = {
    entry_id: entry.entry_id,
    status,
    task,
    attempts,
    generator: generator.settings.provider,
    // Workflow time (deterministic under replay), not the wall clock of whichever worker replays it.
    finished_at: new Date(Date.now()).toISOString(),
  };
  await def.recordEntryResult({ runDir: input.runDir, result });
  return result;

  function unfinished(err: unknown): { status: EntryStatus; outcome: AttemptSummary['outcome']; message: string } {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const type = cause instanceof ApplicationFailure ? cause.type : null;
    const message = failureMessage(err);
    if (type === 'BudgetExceededError') return { status: 'budget_exhausted', outcome: 'budget_exceeded', message };
    if (type === 'InfraFault') return { status: 'infra_error', outcome: 'infra_error', message };
    return { status: 'provider_error', outcome: 'provider_error', message };
  }

  function summary(n: number, outcome: AttemptSummary['outcome'], reasons: string[], g: GenerateOutcome | null): AttemptSummary {
    return {
      attempt_no: n,
      outcome,
      reasons,
      model: g?.model ?? generator.settings.model,
      usage: g?.usage ?? null,
      cost_usd: g?.cost_usd ?? null,
      latency_ms: g?.latency_ms ?? null,
      reused: g?.reused ?? false,
    };
  }
}
