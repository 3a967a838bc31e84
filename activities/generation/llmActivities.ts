/**
 * Activities of the `llm` queue: one generator call per activity, through the ledger.
 *
 * Order inside a call, and why: (1) a response an earlier try of the same attempt already stored is reused, so
 * a worker killed after the provider answered never makes us pay twice; (2) the call is recorded as `started`
 * before the request, with its worst-case cost reserved against the budget in the same transaction (refused if
 * it could pass the cap), so a worker killed mid-request leaves a row the next run marks `lost` with its bounds
 * (every request the provider saw is in the ledger); (3) a 429 / 5xx / timeout is retried here, honouring
 * Retry-After, until `providerPatienceMs` runs out, then fails non-retryably (`provider_error`, which the next run
 * redoes without consuming --max-attempts); (4) the response is stored, then parsed: a malformed response is a
 * judged attempt (`parse_error`), not a failure of the activity.
 */
import { buildEntryPrompt, buildRegistryPrompt, type Feedback, type PromptMessages } from '../../core/generation/prompts.ts';
import { callBound, callCostUsd, hasPrice, priceKey } from '../../core/generation/cost.ts';
import { DEFAULT_PROVIDER_PATIENCE_MS } from '../../core/generation/patience.ts';
import { parseEntryResponse, parseRegistryResponse } from '../../core/generation/parse.ts';
import { LlmSettings, type LlmUsage, type RegistryEntry } from '../../core/generation/types.ts';
import type { LedgerPhase } from '../../core/generation/ledgerTypes.ts';
import type { Task } from '../../schemas/task.ts';
import { ledgerAt, type BudgetCap } from '../ledger/ledger.ts';
import { BudgetExceededError, BudgetWaitError, InvalidInputError, ProviderError } from '../llm/errors.ts';
import { callLlm, outputAllowance, providerEnv } from '../llm/providers.ts';
import { loadPriceTable, loadPromptSet, promptSha256 } from './files.ts';
import { runPaths } from './runFiles.ts';
import { toTemporalFailure, withHeartbeat } from './temporalErrors.ts';

export type Budget = BudgetCap;

/** Backoff between provider retries when the provider sends no Retry-After: 1 s, doubling, at most 60 s. */
const BACKOFF_FIRST_MS = 1_000;
/** How often a call that waits for budget held by calls in flight asks again (a ledger read; calls last seconds). */
const BUDGET_WAIT_MS = 100;
const BACKOFF_MAX_MS = 60_000;

export interface CallMeta {
  usage: LlmUsage;
  cost_usd: number;
  latency_ms: number | null;
  model: string;
  /** true: the response came from the ledger (an earlier try), no request was made. */
  reused: boolean;
}

export type GenerateOutcome = ({ ok: true; task: Task } | { ok: false; error: string }) & CallMeta;

export interface GenerateEntryInput {
  runId: string;
  runDir: string;
  entry: RegistryEntry;
  attemptNo: number;
  settings: LlmSettings;
  promptId: string;
  feedback?: Feedback;
  budget?: Budget;
  /** --provider-patience in ms (default DEFAULT_PROVIDER_PATIENCE_MS). */
  providerPatienceMs?: number;
}

export interface GenerateRegistryInput {
  runId: string;
  runDir: string;
  domain: string;
  count: number;
  takenNames: string[];
  attemptNo: number;
  settings: LlmSettings;
  promptId: string;
  feedback?: Feedback;
  budget?: Budget;
  providerPatienceMs?: number;
}

export type RegistryOutcome = ({ ok: true; triples: Omit<RegistryEntry, 'entry_id'>[] } | { ok: false; error: string }) & CallMeta;

export interface LlmActivityDeps {
  env: Readonly<Record<string, string | undefined>>;
  /** Waits between provider retries (tests pass a recording one). */
  sleep?: (ms: number) => Promise<void>;
}

const utf8Bytes = (m: PromptMessages) => Buffer.byteLength(m.system, 'utf8') + Buffer.byteLength(m.user, 'utf8');
const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

export function createLlmActivities(deps: LlmActivityDeps) {

  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  /**
   * Records the call against the budget; while only the worst cases of calls in flight stand in its way
   * (BudgetWaitError) it waits for them to end and asks again, so concurrency never stops a run far below its
   * cap. It gives up at the attempt's patience deadline (a dead worker's `started` row holds its reservation until
   * its entry runs again), then as budget-stopped.
   */
  async function startWithinBudget(deadline: number, start: () => number): Promise<number> {
    for (;;) {
      try {
        return start();
      } catch (err) {
        if (!(err instanceof BudgetWaitError)) throw err;
        if (Date.now() >= deadline) throw new BudgetExceededError(`budget cap reached: ${err.message} kept this call waiting past --provider-patience (rerun to resume)`);
        await sleep(BUDGET_WAIT_MS);
      }
    }
  }

  /** Steps (1)–(3) and the request, with provider errors retried until the patience runs out. */
  async function call(
    runDir: string,
    key: { run_id: string; phase: LedgerPhase; entry_id: string; attempt_no: number },
    settingsIn: LlmSettings,
    promptId: string,
    messages: PromptMessages,
    budget: Budget | undefined,
    patienceMs: number,
  ): Promise<CallMeta & { text: string }> {
    const settings = LlmSettings.parse(settingsIn);
    const table = loadPriceTable();
    if (!hasPrice(table, settings.provider, settings.model)) {
      throw new InvalidInputError(`data/prices.json has no price for "${priceKey(settings.provider, settings.model)}": add it before generating with this model`);
    }
    const ledger = ledgerAt(runPaths(runDir).ledger);
    const stored = ledger.storedResponse(key);
    if (stored) {
      const usage = { input_tokens: stored.input_tokens, output_tokens: stored.output_tokens, reasoning_tokens: stored.reasoning_tokens };
      return { text: stored.text, usage, cost_usd: stored.cost_usd, latency_ms: stored.latency_ms, model: stored.model, reused: true };
    }
    const env = providerEnv(settings.provider, deps.env);
    const chars = messages.system.length + messages.user.length;
    const bound = callBound(table, settings.provider, settings.model, { chars, bytes: utf8Bytes(messages) }, outputAllowance(settings));
    const deadline = Date.now() + patienceMs;
    let backoff = BACKOFF_FIRST_MS;
    // Attempts are for the model, not for the network: every try below is the same attempt (try_no 1, 2, ...),
    // each a ledger row, and only the patience (not --max-attempts) bounds them.
    for (let tries = 1; ; tries++) {
      const id = await startWithinBudget(deadline, () => ledger.startCall(
        {
          ...key,
          provider: settings.provider,
          model: settings.model,
          endpoint: settings.endpoint,
          reasoning_effort: settings.reasoning_effort ?? null,
          prompt_id: promptId,
          prompt_sha256: promptSha256(messages),
          started_at: new Date().toISOString(),
          ...bound,
        },
        budget,
      ));
      const t0 = performance.now();
      try {
        const reply = await callLlm(settings, messages, env);
        const latency_ms = Math.round(performance.now() - t0);
        // Priced by the requested model: a dated snapshot id in the reply is the same product and price.
        const cost_usd = callCostUsd(table, settings.provider, settings.model, reply.usage);
        ledger.finishCall(id, { text: reply.text, latency_ms, ...reply.usage, cost_usd, model: reply.model });
        return { text: reply.text, usage: reply.usage, cost_usd, latency_ms, model: reply.model, reused: false };
      } catch (err) {
        const status = (err as { httpStatus?: number | null }).httpStatus ?? null;
        ledger.failCall(id, { http_status: status, error: (err as Error).message, latency_ms: Math.round(performance.now() - t0) });
        if (!(err instanceof ProviderError) || !err.retryable) throw err;
        // Honour the provider's Retry-After; otherwise back off exponentially.
        const wait = err.retryAfterMs ?? backoff;
        backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
        if (Date.now() + wait > deadline) {
          throw new ProviderError(`${err.message} [still failing after ${tries} tries in ${secs(patienceMs)}: raise --provider-patience, or rerun later to resume]`, false, err.httpStatus);
        }
        await sleep(wait);
      }
    }
  }

  return {
    async generateEntryLlm(input: GenerateEntryInput): Promise<GenerateOutcome> {
      try {
        const set = loadPromptSet(input.promptId);
        const messages = buildEntryPrompt(set, input.entry, input.feedback);
        const key = { run_id: input.runId, phase: 'entry' as const, entry_id: input.entry.entry_id, attempt_no: input.attemptNo };
        const r = await withHeartbeat(() => call(input.runDir, key, input.settings, input.promptId, messages, input.budget, input.providerPatienceMs ?? DEFAULT_PROVIDER_PATIENCE_MS));
        const { text, ...meta } = r;
        const parsed = parseEntryResponse(text, input.entry);
        if (!parsed.ok) {
          ledgerAt(runPaths(input.runDir).ledger).judge(key, 'parse_error', [parsed.error]);
          return { ok: false, error: parsed.error, ...meta };
        }
        return { ok: true, task: parsed.value, ...meta };
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },

    async generateRegistryBatch(input: GenerateRegistryInput): Promise<RegistryOutcome> {
      try {
        const set = loadPromptSet(input.promptId);
        const messages = buildRegistryPrompt(set, input.domain, input.count, input.takenNames, input.feedback);
        const key = { run_id: input.runId, phase: 'registry' as const, entry_id: `registry:${input.domain}`, attempt_no: input.attemptNo };
        const r = await withHeartbeat(() => call(input.runDir, key, input.settings, input.promptId, messages, input.budget, input.providerPatienceMs ?? DEFAULT_PROVIDER_PATIENCE_MS));
        const { text, ...meta } = r;
        const parsed = parseRegistryResponse(text, input.domain);
        const ledger = ledgerAt(runPaths(input.runDir).ledger);
        if (!parsed.ok) {
          ledger.judge(key, 'parse_error', [parsed.error]);
          return { ok: false, error: parsed.error, ...meta };
        }
        ledger.judge(key, 'accepted', []);
        return { ok: true, triples: parsed.value, ...meta };
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },
  };
}
export type LlmActivities = ReturnType<typeof createLlmActivities>;
