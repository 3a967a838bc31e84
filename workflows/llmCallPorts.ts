/**
 * The ports of workflows/llmCall.ts bound to activities, for the generation workflows: the reservation steps on
 * the default queue (the coordinator, which owns the run folder and its ledger), the request on the llm queue,
 * which Temporal never retries by itself (a retry must reserve its own row first: llmCall.ts does it).
 */
import { isCancellation, proxyActivities, sleep, uuid4 } from '@temporalio/workflow';
import type { Budget, CallReservationActivities, CallTarget, GenerateOutcome, RegistryOutcome } from '../activities/generation/callReservations.ts';
import type { LlmActivities } from '../activities/generation/llmActivities.ts';
import { activityOptions, llmActivityOptions, PROVIDER_RETRY, type TaskQueues } from '../temporal.config.ts';
import type { ActivityOverrides } from './generationTypes.ts';
import { classifySendFailure, ledgeredCall, type CallPorts } from './llmCall.ts';

export function generationCalls(o: { queues: TaskQueues; patienceMs: number; overrides?: ActivityOverrides; budget?: Budget }) {
  const llmOptions = llmActivityOptions(o.queues, o.patienceMs, o.overrides?.llm);
  const llm = proxyActivities<LlmActivities>({ ...llmOptions, retry: { ...llmOptions.retry, maximumAttempts: 1 } });
  const def = proxyActivities<CallReservationActivities>(activityOptions('default', o.queues, o.overrides?.default));
  // The class's retry policy still says how many times a worker may die under one call (0 is Temporal's "no limit").
  const maxLostTries = llmOptions.retry?.maximumAttempts || PROVIDER_RETRY.maximumAttempts!;

  function ports<O>(target: CallTarget): CallPorts<O> {
    return {
      reserve: (waitUntilMs) => def.reserveLlmCall({ ...target, budget: o.budget, reservation: uuid4(), waitUntilMs }),
      send: async (r) => {
        try {
          return { kind: 'answered', answer: await llm.sendLlmRequest({ settings: r.settings, messages: r.messages }) };
        } catch (err) {
          if (isCancellation(err)) throw err;
          return classifySendFailure(err);
        }
      },
      complete: (callId, answer) => def.completeLlmCall({ ...target, callId, answer }) as Promise<O | null>,
      settleLost: (callId) => def.settleLostLlmCall({ runDir: target.runDir, callId }),
      release: (callId) => def.releaseLlmCall({ runDir: target.runDir, callId }),
      sleep: (ms) => sleep(ms),
      now: () => Date.now(),
    };
  }
  const policy = { patienceMs: o.patienceMs, maxLostTries };
  return {
    entry: (target: CallTarget) => ledgeredCall(ports<GenerateOutcome>(target), policy),
    registry: (target: CallTarget) => ledgeredCall(ports<RegistryOutcome>(target), policy),
    judgeAttempt: def.judgeAttempt,
  };
}
