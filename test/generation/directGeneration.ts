/**
 * The generation call outside Temporal: the loop the workflows run (workflows/llmCall.ts) with its ports bound to
 * the coordinator's and the llm worker's activity functions called directly, on one machine. Tests of the ledger,
 * the budget and the cost bounds use it; the workflows bind the same loop to activities (workflows/llmCallPorts.ts).
 */
import { randomUUID } from 'node:crypto';
import { createCallReservationActivities, type Budget, type CallTarget, type GenerateOutcome } from '../../activities/generation/callReservations.ts';
import { createLlmActivities } from '../../activities/generation/llmActivities.ts';
import type { Feedback } from '../../core/generation/prompts.ts';
import type { LlmSettings, RegistryEntry } from '../../core/generation/types.ts';
import { DEFAULT_PROVIDER_PATIENCE_MS } from '../../core/generation/patience.ts';
import { classifySendFailure, ledgeredCall, type CallPorts } from '../../workflows/llmCall.ts';

export interface DirectEntryInput {
  runId: string;
  runDir: string;
  entry: RegistryEntry;
  attemptNo: number;
  settings: LlmSettings;
  promptId: string;
  feedback?: Feedback;
  budget?: Budget;
  providerPatienceMs?: number;
}

export function directPorts<O>(env: Readonly<Record<string, string | undefined>>, target: CallTarget, budget?: Budget, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): CallPorts<O> {
  const def = createCallReservationActivities();
  const llm = createLlmActivities({ env });
  return {
    reserve: (waitUntilMs) => def.reserveLlmCall({ ...target, budget, reservation: randomUUID(), waitUntilMs }),
    send: async (r) => {
      try {
        return { kind: 'answered', answer: await llm.sendLlmRequest({ settings: r.settings, messages: r.messages }) };
      } catch (err) {
        return classifySendFailure(err);
      }
    },
    complete: (callId, answer) => def.completeLlmCall({ ...target, callId, answer }) as Promise<O | null>,
    settleLost: (callId) => def.settleLostLlmCall({ runDir: target.runDir, callId }),
    release: (callId) => def.releaseLlmCall({ runDir: target.runDir, callId }),
    sleep,
    now: () => Date.now(),
  };
}

/** One entry's generation call, as buildEntry makes it, with the activities called in-process. */
export function generateEntryDirect(env: Readonly<Record<string, string | undefined>>, i: DirectEntryInput): Promise<GenerateOutcome> {
  const target: CallTarget = { runId: i.runId, runDir: i.runDir, attemptNo: i.attemptNo, settings: i.settings, promptId: i.promptId, request: { kind: 'entry', entry: i.entry, feedback: i.feedback } };
  return ledgeredCall(directPorts<GenerateOutcome>(env, target, i.budget), { patienceMs: i.providerPatienceMs ?? DEFAULT_PROVIDER_PATIENCE_MS, maxLostTries: 8 });
}
