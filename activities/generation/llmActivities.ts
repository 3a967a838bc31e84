/**
 * Activities of the `llm` queue: one generator call per activity, through the ledger.
 *
 * Order inside a call, and why: (1) a response an earlier try of the same attempt already stored is reused, so
 * a worker killed after the provider answered never makes us pay twice; (2) the budget is checked before
 * anything is sent; (3) the call is recorded as `started` before the request, so a worker killed mid-request
 * leaves a row the next try marks `lost` (every request the provider saw is in the ledger); (4) the response is
 * stored, then parsed: a malformed response is a judged attempt (`parse_error`), not a failure of the activity.
 */
import { buildEntryPrompt, buildRegistryPrompt, type Feedback, type PromptMessages } from '../../core/generation/prompts.ts';
import { callCostUsd, hasPrice, priceKey } from '../../core/generation/cost.ts';
import { parseEntryResponse, parseRegistryResponse } from '../../core/generation/parse.ts';
import { LlmSettings, type LlmUsage, type RegistryEntry } from '../../core/generation/types.ts';
import type { LedgerPhase } from '../../core/generation/ledgerTypes.ts';
import type { Task } from '../../schemas/task.ts';
import { ledgerAt, type Ledger } from '../ledger/ledger.ts';
import { BudgetExceededError, InvalidInputError } from '../llm/errors.ts';
import { callLlm, providerEnv } from '../llm/providers.ts';
import { loadPriceTable, loadPromptSet, promptSha256 } from './files.ts';
import { runPaths } from './runFiles.ts';
import { toTemporalFailure, withHeartbeat } from './temporalErrors.ts';

export interface Budget {
  max_usd?: number;
  max_tokens?: number;
}

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
}

export type RegistryOutcome = ({ ok: true; triples: Omit<RegistryEntry, 'entry_id'>[] } | { ok: false; error: string }) & CallMeta;

export interface LlmActivityDeps {
  env: Readonly<Record<string, string | undefined>>;
}

export function checkBudget(ledger: Ledger, runId: string, budget: Budget | undefined): void {
  if (!budget) return;
  const s = ledger.spend(runId);
  if (budget.max_usd !== undefined && s.cost_usd >= budget.max_usd) {
    throw new BudgetExceededError(`budget cap reached: spent $${s.cost_usd.toFixed(4)} of $${budget.max_usd} (rerun with a higher --budget-usd to resume)`);
  }
  if (budget.max_tokens !== undefined && s.tokens >= budget.max_tokens) {
    throw new BudgetExceededError(`budget cap reached: ${s.tokens} of ${budget.max_tokens} tokens (rerun with a higher --budget-tokens to resume)`);
  }
}

export function createLlmActivities(deps: LlmActivityDeps) {

  /** Steps (1)–(3) and the request; returns the stored response text with its usage. */
  async function call(
    runDir: string,
    key: { run_id: string; phase: LedgerPhase; entry_id: string; attempt_no: number },
    settingsIn: LlmSettings,
    promptId: string,
    messages: PromptMessages,
    budget: Budget | undefined,
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
    checkBudget(ledger, key.run_id, budget);
    const env = providerEnv(settings.provider, deps.env);
    const id = ledger.startCall({
      ...key,
      provider: settings.provider,
      model: settings.model,
      endpoint: settings.endpoint,
      reasoning_effort: settings.reasoning_effort ?? null,
      prompt_id: promptId,
      prompt_sha256: promptSha256(messages),
      started_at: new Date().toISOString(),
    });
    const t0 = performance.now();
    try {
      const reply = await withHeartbeat(() => callLlm(settings, messages, env));
      const latency_ms = Math.round(performance.now() - t0);
      // Priced by the requested model: a dated snapshot id in the reply is the same product and price.
      const cost_usd = callCostUsd(table, settings.provider, settings.model, reply.usage);
      ledger.finishCall(id, { text: reply.text, latency_ms, ...reply.usage, cost_usd, model: reply.model });
      return { text: reply.text, usage: reply.usage, cost_usd, latency_ms, model: reply.model, reused: false };
    } catch (err) {
      const status = (err as { httpStatus?: number | null }).httpStatus ?? null;
      ledger.failCall(id, { http_status: status, error: (err as Error).message, latency_ms: Math.round(performance.now() - t0) });
      throw err;
    }
  }

  return {
    async generateEntryLlm(input: GenerateEntryInput): Promise<GenerateOutcome> {
      try {
        const set = loadPromptSet(input.promptId);
        const messages = buildEntryPrompt(set, input.entry, input.feedback);
        const key = { run_id: input.runId, phase: 'entry' as const, entry_id: input.entry.entry_id, attempt_no: input.attemptNo };
        const r = await call(input.runDir, key, input.settings, input.promptId, messages, input.budget);
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
        const r = await call(input.runDir, key, input.settings, input.promptId, messages, input.budget);
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
