/**
 * One generator call through the ledger, as workflow steps, so that the llm worker needs no run folder:
 *
 *   reserve (coordinator) → send (llm queue, any machine) → complete (coordinator)
 *
 * Order, and why: (1) the coordinator reserves a `started` row before the request may be sent, with its worst case
 * held against the budget in the same transaction (an answer an earlier try stored is judged instead: nothing is
 * sent); (2) the llm activity gets the prompt and settings in its input and returns the answer with its usage; (3)
 * the coordinator stores, prices and judges it. A 429 / 5xx / broken connection is recorded and tried again,
 * honouring Retry-After, until the patience runs out (then `provider_error`, which the next run redoes without
 * consuming --max-attempts). When the llm activity fails by heartbeat or timeout its worker died mid-request: the
 * row is settled `lost` (bounded in the audit) and the retry gets a row of its own before it sends. Temporal
 * never retries the send on its own, which would send without a row.
 *
 * The loop takes its steps as ports: the workflow binds them to activities (`workflowCallPorts`), and tests bind
 * them to the same activity functions called directly.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { LlmAnswer, Reservation } from '../activities/generation/callReservations.ts';

/** Backoff between provider retries when the provider sends no Retry-After: 1 s, doubling, at most 60 s. */
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

/** Failure types of the send activity that mean "refused before sending": the reservation is released. */
const NOT_SENT_TYPES = ['InvalidInputError'];

export type SendResult = { kind: 'answered'; answer: LlmAnswer } | { kind: 'not_sent'; error: unknown } | { kind: 'lost'; message: string };

export interface CallPorts<O> {
  /** A fresh reservation (or the stored answer, or `wait` while budget is held by calls in flight). */
  reserve(waitUntilMs: number): Promise<Reservation>;
  send(r: Extract<Reservation, { kind: 'reserved' }>): Promise<SendResult>;
  /** Records the answer: the judged outcome for an answered call, null for a refusal. */
  complete(callId: number, answer: LlmAnswer): Promise<O | null>;
  settleLost(callId: number): Promise<unknown>;
  release(callId: number): Promise<unknown>;
  sleep(ms: number): Promise<void>;
  now(): number;
}

export interface CallPolicy {
  patienceMs: number;
  /** How many tries of one call may be lost with their worker before the attempt ends as provider_error. */
  maxLostTries: number;
}

/** The innermost message of an activity failure (the activity's own one-line reason). */
export function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return String((cause as Error)?.message ?? cause);
}

/** A send that failed: refused before sending (an application failure of a not-sent type), else lost with its worker. */
export function classifySendFailure(err: unknown): SendResult {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && NOT_SENT_TYPES.includes(cause.type ?? '')) return { kind: 'not_sent', error: err };
  return { kind: 'lost', message: failureMessage(err) };
}

const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

export async function ledgeredCall<O>(ports: CallPorts<O>, policy: CallPolicy): Promise<O> {
  const deadline = ports.now() + policy.patienceMs;
  let backoff = BACKOFF_FIRST_MS;
  let lost = 0;
  // Attempts are for the model, not for the network: every try below is the same attempt (try_no 1, 2, ...), each
  // a ledger row, and only the patience (and the lost-worker cap) bounds them.
  for (let tries = 1; ; tries++) {
    let r = await ports.reserve(deadline);
    while (r.kind === 'wait') r = await ports.reserve(deadline);
    if (r.kind === 'stored') return r.outcome as O;
    const sent = await ports.send(r);
    if (sent.kind === 'not_sent') {
      await ports.release(r.callId);
      throw sent.error;
    }
    if (sent.kind === 'lost') {
      await ports.settleLost(r.callId);
      lost += 1;
      if (lost >= policy.maxLostTries) {
        throw ApplicationFailure.create({ type: 'LlmWorkerLost', nonRetryable: true, message: `${lost} tries of this call were lost with their llm worker (last: ${sent.message}); rerun to resume` });
      }
      continue;
    }
    const outcome = await ports.complete(r.callId, sent.answer);
    const a = sent.answer;
    if (a.ok) return outcome as O;
    if (!a.retryable) throw ApplicationFailure.create({ type: 'NonRetryableProviderError', nonRetryable: true, message: a.error, details: [{ http_status: a.http_status }] });
    // Honour the provider's Retry-After; otherwise back off exponentially.
    const wait = a.retry_after_ms ?? backoff;
    backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    if (ports.now() + wait > deadline) {
      throw ApplicationFailure.create({
        type: 'NonRetryableProviderError',
        nonRetryable: true,
        message: `${a.error} [still failing after ${tries} tries in ${secs(policy.patienceMs)}: raise --provider-patience, or rerun later to resume]`,
        details: [{ http_status: a.http_status }],
      });
    }
    await ports.sleep(wait);
  }
}
