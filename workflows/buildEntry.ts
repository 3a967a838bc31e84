/**
 * One registry entry: generate → the five gates → on rejection regenerate with the gate's reasons (or the parse
 * error) in the prompt, up to `maxAttempts`. Ends accepted or rejected with its full attempt history, written
 * to runs/<run>/entries/<id>.json. A budget stop or an exhausted provider retry ends the entry as
 * `budget_exhausted` / `provider_error`, which a rerun of the same run picks up again.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { DefaultActivities } from '../activities/generation/defaultActivities.ts';
import type { ExecActivities } from '../activities/generation/execActivities.ts';
import type { GenerateOutcome, LlmActivities } from '../activities/generation/llmActivities.ts';
import type { AttemptSummary, EntryResult, EntryStatus } from '../core/generation/types.ts';
import type { Task } from '../schemas/task.ts';
import { activityOptions } from '../temporal.config.ts';
import type { BuildEntryInput } from './generationTypes.ts';

export async function buildEntry(input: BuildEntryInput): Promise<EntryResult> {
  const def = proxyActivities<DefaultActivities>(activityOptions('default', input.queues, input.activityOverrides?.default));
  const llm = proxyActivities<LlmActivities>(activityOptions('llm', input.queues, input.activityOverrides?.llm));
  const exec = proxyActivities<ExecActivities>(activityOptions('exec', input.queues, input.activityOverrides?.exec));
  const { entry, generator } = input;

  const start = await def.entryStartState({ runDir: input.runDir, runId: input.runId, entryId: entry.entry_id });
  // Full history across reruns: what earlier runs of this entry attempted (calls the ledger has), then ours.
  const attempts: AttemptSummary[] = start.previousAttempts.filter((a) => a.attempt_no <= start.lastAttempt);
  let feedback = start.lastRejection ? { previous_attempt: start.lastRejection.attempt_no, reasons: start.lastRejection.reasons } : undefined;
  let status: EntryStatus = 'rejected';
  let task: Task | null = null;

  for (let n = start.lastAttempt + 1; n <= input.maxAttempts; n++) {
    let gen: GenerateOutcome;
    try {
      gen =
        generator.kind === 'llm'
          ? await llm.generateEntryLlm({
              runId: input.runId, runDir: input.runDir, entry, attemptNo: n,
              settings: generator.settings, promptId: generator.promptId, feedback, budget: input.budget,
            })
          : await exec.generateEntryMechanical({
              runId: input.runId, runDir: input.runDir, entry, attemptNo: n,
              tasksPath: generator.tasksPath, seed: generator.seed, profile: input.profile,
            });
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : err;
      const type = cause instanceof ApplicationFailure ? cause.type : null;
      status = type === 'BudgetExceededError' ? 'budget_exhausted' : 'provider_error';
      attempts.push(summary(n, type === 'BudgetExceededError' ? 'budget_exceeded' : 'provider_error', [String((cause as Error)?.message ?? cause)], null));
      break;
    }
    if (!gen.ok) {
      attempts.push(summary(n, 'parse_error', [gen.error], gen));
      feedback = { previous_attempt: n, reasons: [gen.error] };
      continue;
    }
    const gate = await exec.gateEntry({ runId: input.runId, runDir: input.runDir, entryId: entry.entry_id, attemptNo: n, task: gen.task, profile: input.profile });
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
    generator: generator.kind === 'llm' ? generator.settings.provider : 'mechanical',
    // Workflow time (deterministic under replay), not the wall clock of whichever worker replays it.
    finished_at: new Date(Date.now()).toISOString(),
  };
  await def.recordEntryResult({ runDir: input.runDir, result });
  return result;

  function summary(n: number, outcome: AttemptSummary['outcome'], reasons: string[], g: GenerateOutcome | null): AttemptSummary {
    return {
      attempt_no: n,
      outcome,
      reasons,
      model: g?.model ?? (generator.kind === 'llm' ? generator.settings.model : 'mutation-engine'),
      usage: g?.usage ?? null,
      cost_usd: g?.cost_usd ?? null,
      latency_ms: g?.latency_ms ?? null,
      reused: g?.reused ?? false,
    };
  }
}
