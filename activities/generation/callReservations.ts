/**
 * The coordinator's side of an LLM call (default queue: the process that owns `runs/<run>/` and its ledger). The
 * llm worker that sends the request may be on another machine with no run folder, so the ledger's promise, "a row
 * before the request is sent", is kept here, in three steps the workflow takes around the llm activity:
 *
 *   reserve   before sending: an answer an earlier try already stored is judged instead (nothing is sent);
 *             otherwise the prompt is built, its worst case reserved against the budget in the same transaction
 *             as the `started` row (the budget is checked here, exactly as before), and the prompt handed back
 *             for the llm activity's input;
 *   complete  with the answer the llm activity returned: billed at data/prices.json, stored, parsed and judged
 *             (parse_error), or the provider's refusal recorded;
 *   settle    when the llm activity failed by heartbeat or timeout (its worker died mid-request): `lost` with the
 *             row's bounds, so the audit brackets the bill; the retry reserves a row of its own. A refusal the llm
 *             worker made before sending (no API key there) releases the row instead: no request, no row.
 */
import { buildEntryPrompt, buildRegistryPrompt, type Feedback, type PromptMessages } from '../../core/generation/prompts.ts';
import { callBound, callCostUsd, hasPrice, priceKey } from '../../core/generation/cost.ts';
import { parseEntryResponse, parseRegistryResponse } from '../../core/generation/parse.ts';
import { LlmSettings, type LlmUsage, type RegistryEntry } from '../../core/generation/types.ts';
import type { LedgerPhase } from '../../core/generation/ledgerTypes.ts';
import type { Task } from '../../schemas/task.ts';
import { ledgerAt, type BudgetCap, type CallKey, type Ledger } from '../ledger/ledger.ts';
import { BudgetExceededError, BudgetWaitError, InvalidInputError } from '../llm/errors.ts';
import { outputAllowance } from '../llm/providers.ts';
import { loadPriceTable, loadPromptSet, promptSha256 } from './files.ts';
import { runPaths } from './runFiles.ts';
import { toTemporalFailure } from './temporalErrors.ts';

export type Budget = BudgetCap;

/** How often a reservation that waits for budget held by calls in flight asks again (a ledger read; calls last seconds). */
const BUDGET_WAIT_MS = 100;
/**
 * How long one reservation activity waits for budget before handing back `wait` (the workflow asks again at once):
 * well inside the default class's start-to-close, and few workflow events per second of waiting.
 */
const BUDGET_WAIT_SLICE_MS = 1_000;

export interface CallMeta {
  usage: LlmUsage;
  cost_usd: number;
  latency_ms: number | null;
  model: string;
  /** true: the response came from the ledger (an earlier try), no request was made. */
  reused: boolean;
}

export type GenerateOutcome = ({ ok: true; task: Task } | { ok: false; error: string }) & CallMeta;
export type RegistryOutcome = ({ ok: true; triples: Omit<RegistryEntry, 'entry_id'>[] } | { ok: false; error: string }) & CallMeta;

/** What is asked: one entry's implementation (phase 2) or one domain's triples (phase 1). */
export type LlmRequest =
  | { kind: 'entry'; entry: RegistryEntry; feedback?: Feedback }
  | { kind: 'registry'; domain: string; count: number; takenNames: string[]; feedback?: Feedback };

export interface CallTarget {
  runId: string;
  runDir: string;
  attemptNo: number;
  settings: LlmSettings;
  promptId: string;
  request: LlmRequest;
}

export interface ReserveInput extends CallTarget {
  budget?: Budget;
  /** The workflow's token for this reservation: a retried activity finds its row instead of adding one. */
  reservation: string;
  /** The attempt's patience deadline (ms since the epoch): waiting for budget past it is a budget stop. */
  waitUntilMs: number;
}

export type Reservation =
  | { kind: 'stored'; outcome: GenerateOutcome | RegistryOutcome }
  | { kind: 'reserved'; callId: number; settings: LlmSettings; messages: PromptMessages }
  | { kind: 'wait'; reason: string };

/** What the llm activity returns: the answer with its usage, or the provider's refusal (both were sent). */
export type LlmAnswer =
  | { ok: true; text: string; usage: LlmUsage; model: string; latency_ms: number }
  | { ok: false; http_status: number | null; error: string; retryable: boolean; retry_after_ms: number | null; latency_ms: number };

export interface CompleteInput extends CallTarget {
  callId: number;
  answer: LlmAnswer;
}

export function callKey(t: Pick<CallTarget, 'runId' | 'attemptNo' | 'request'>): CallKey & { phase: LedgerPhase } {
  const r = t.request;
  return r.kind === 'entry'
    ? { run_id: t.runId, phase: 'entry', entry_id: r.entry.entry_id, attempt_no: t.attemptNo }
    : { run_id: t.runId, phase: 'registry', entry_id: `registry:${r.domain}`, attempt_no: t.attemptNo };
}

function promptFor(t: CallTarget): PromptMessages {
  const set = loadPromptSet(t.promptId);
  const r = t.request;
  return r.kind === 'entry' ? buildEntryPrompt(set, r.entry, r.feedback) : buildRegistryPrompt(set, r.domain, r.count, r.takenNames, r.feedback);
}

/** Parses an answer and judges what parsing decides: parse_error, or (registry) accepted; an entry awaits its gate. */
function judgeAnswer(ledger: Ledger, t: CallTarget, text: string, meta: CallMeta): GenerateOutcome | RegistryOutcome {
  const key = callKey(t);
  const r = t.request;
  if (r.kind === 'entry') {
    const parsed = parseEntryResponse(text, r.entry);
    if (!parsed.ok) {
      ledger.judge(key, 'parse_error', [parsed.error]);
      return { ok: false, error: parsed.error, ...meta };
    }
    return { ok: true, task: parsed.value, ...meta };
  }
  const parsed = parseRegistryResponse(text, r.domain);
  if (!parsed.ok) {
    ledger.judge(key, 'parse_error', [parsed.error]);
    return { ok: false, error: parsed.error, ...meta };
  }
  ledger.judge(key, 'accepted', []);
  return { ok: true, triples: parsed.value, ...meta };
}

const utf8Bytes = (m: PromptMessages) => Buffer.byteLength(m.system, 'utf8') + Buffer.byteLength(m.user, 'utf8');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createCallReservationActivities() {
  return {
    async reserveLlmCall(input: ReserveInput): Promise<Reservation> {
      try {
        const settings = LlmSettings.parse(input.settings);
        const table = loadPriceTable();
        if (!hasPrice(table, settings.provider, settings.model)) {
          throw new InvalidInputError(`data/prices.json has no price for "${priceKey(settings.provider, settings.model)}": add it before generating with this model`);
        }
        const ledger = ledgerAt(runPaths(input.runDir).ledger);
        const key = callKey(input);
        const stored = ledger.storedResponse(key);
        if (stored) {
          const usage = { input_tokens: stored.input_tokens, output_tokens: stored.output_tokens, reasoning_tokens: stored.reasoning_tokens };
          const meta = { usage, cost_usd: stored.cost_usd, latency_ms: stored.latency_ms, model: stored.model, reused: true };
          return { kind: 'stored', outcome: judgeAnswer(ledger, input, stored.text, meta) };
        }
        const messages = promptFor(input);
        const chars = messages.system.length + messages.user.length;
        const bound = callBound(table, settings.provider, settings.model, { chars, bytes: utf8Bytes(messages) }, outputAllowance(settings));
        const row = {
          ...key,
          provider: settings.provider,
          model: settings.model,
          endpoint: settings.endpoint,
          reasoning_effort: settings.reasoning_effort ?? null,
          prompt_id: input.promptId,
          prompt_sha256: promptSha256(messages),
          started_at: new Date().toISOString(),
          ...bound,
        };
        // While only the worst cases of calls in flight stand in its way (BudgetWaitError) it waits for them to end
        // and asks again, so concurrency never stops a run far below its cap; at the patience deadline it gives up
        // as budget-stopped (a dead worker's `started` row holds its reservation until it is settled).
        const sliceEnd = Math.min(input.waitUntilMs, Date.now() + BUDGET_WAIT_SLICE_MS);
        for (;;) {
          try {
            return { kind: 'reserved', callId: ledger.startCall(row, input.budget, input.reservation), settings, messages };
          } catch (err) {
            if (!(err instanceof BudgetWaitError)) throw err;
            if (Date.now() >= input.waitUntilMs) throw new BudgetExceededError(`budget cap reached: ${err.message} kept this call waiting past --provider-patience (rerun to resume)`);
            if (Date.now() >= sliceEnd) return { kind: 'wait', reason: err.message };
            await sleep(BUDGET_WAIT_MS);
          }
        }
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },

    /** The llm activity's answer: an answered call stored and judged (its outcome returned), a refusal recorded (null). */
    async completeLlmCall(input: CompleteInput): Promise<GenerateOutcome | RegistryOutcome | null> {
      try {
        const ledger = ledgerAt(runPaths(input.runDir).ledger);
        const a = input.answer;
        if (!a.ok) {
          ledger.failCall(input.callId, { http_status: a.http_status, error: a.error, latency_ms: a.latency_ms });
          return null;
        }
        const settings = LlmSettings.parse(input.settings);
        // Priced by the requested model: a dated snapshot id in the reply is the same product and price.
        const cost_usd = callCostUsd(loadPriceTable(), settings.provider, settings.model, a.usage);
        ledger.finishCall(input.callId, { text: a.text, latency_ms: a.latency_ms, ...a.usage, cost_usd, model: a.model });
        return judgeAnswer(ledger, input, a.text, { usage: a.usage, cost_usd, latency_ms: a.latency_ms, model: a.model, reused: false });
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },

    /** A reservation whose llm activity failed by heartbeat/timeout (maybe sent, maybe billed): `lost`, bounds kept. */
    async settleLostLlmCall(input: { runDir: string; callId: number }): Promise<boolean> {
      return ledgerAt(runPaths(input.runDir).ledger).settleLost(input.callId);
    },

    /** A reservation the llm worker refused before sending: the row goes (one row per request sent). */
    async releaseLlmCall(input: { runDir: string; callId: number }): Promise<boolean> {
      return ledgerAt(runPaths(input.runDir).ledger).release(input.callId);
    },

    /** The gate's verdict on an entry's attempt, recorded on its answered row (the exec worker has no ledger). */
    async judgeAttempt(input: { runDir: string; runId: string; entryId: string; attemptNo: number; accepted: boolean; reasons: string[] }): Promise<void> {
      const key = { run_id: input.runId, phase: 'entry' as const, entry_id: input.entryId, attempt_no: input.attemptNo };
      ledgerAt(runPaths(input.runDir).ledger).judge(key, input.accepted ? 'accepted' : 'rejected', input.reasons);
    },
  };
}
export type CallReservationActivities = ReturnType<typeof createCallReservationActivities>;
