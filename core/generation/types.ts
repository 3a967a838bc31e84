/**
 * Records of the generation pipeline: registry entries, generator settings, LLM usage, attempt outcomes.
 * Pure types and zod schemas; shared by activities, workflows (as types) and the CLI.
 */
import { z } from 'zod';
import type { Task } from '../../schemas/task.ts';

export const LLM_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];
export const GENERATOR_KINDS = [...LLM_PROVIDERS, 'mechanical'] as const;
export type GeneratorKind = (typeof GENERATOR_KINDS)[number];

/** The API surface each provider is called through. OpenAI has two (Chat Completions and Responses). */
export const ENDPOINTS = {
  openai: ['chat.completions', 'responses'],
  anthropic: ['messages'],
  gemini: ['generateContent'],
} as const satisfies Record<LlmProvider, readonly string[]>;

export const LlmSettings = z
  .object({
    provider: z.enum(LLM_PROVIDERS),
    model: z.string().min(1),
    endpoint: z.string().min(1),
    /** Provider's own effort knob: OpenAI `reasoning_effort`, Anthropic thinking budget, Gemini thinking budget. */
    reasoning_effort: z.string().optional(),
    /** The output cap the request states; unset: `defaultMaxOutputTokens` (the budget and the lost-call bound use it). */
    max_output_tokens: z.number().int().positive().optional(),
  })
  .superRefine((s, ctx) => {
    const allowed = ENDPOINTS[s.provider] as readonly string[];
    if (!allowed.includes(s.endpoint)) {
      ctx.addIssue({ code: 'custom', path: ['endpoint'], message: `provider ${s.provider} has endpoints ${allowed.join(', ')}, not "${s.endpoint}"` });
    }
  })
  .transform((s) => ({ ...s, max_output_tokens: s.max_output_tokens ?? defaultMaxOutputTokens(s.provider, s.reasoning_effort) }));
export type LlmSettings = z.output<typeof LlmSettings>;

/**
 * Visible reply tokens a generation request allows by default. A reply is one function, 7-10 asserts and four
 * single-edit copies of the function: the curated tasks written out as full replies measure 2,628 characters
 * at the median and 6,255 at most (the fake provider's entry: 1,983), so at a code-heavy 3 characters a token
 * the largest is ~2,100 tokens; 4,096 leaves twice that. A reply cut by the cap is unparsable JSON: a
 * parse_error attempt, judged and regenerated like any other. (Until 2026-12 the default was 16,000, which made
 * every call's worst case and every lost call's bound ~8x a typical call.)
 */
export const DEFAULT_REPLY_TOKENS = 4096;

/** Effort words as thinking-token budgets: Anthropic's and Gemini's knob is a budget; OpenAI's output cap holds its reasoning. */
export const THINKING_BUDGET: Readonly<Record<string, number>> = { minimal: 1024, low: 2048, medium: 8192, high: 16_000 };

/**
 * The default output cap of a request. OpenAI counts reasoning inside `max_output_tokens`, so its default adds the
 * effort's thinking budget to the reply allowance; Anthropic's and Gemini's callers add the thinking budget to the
 * cap themselves (activities/llm/providers.ts), so theirs is the reply allowance alone.
 */
export function defaultMaxOutputTokens(provider: LlmProvider, effort: string | undefined): number {
  if (provider !== 'openai' || !effort) return DEFAULT_REPLY_TOKENS;
  const budget = /^\d+$/.test(effort) ? Number(effort) : (THINKING_BUDGET[effort] ?? THINKING_BUDGET.high);
  return DEFAULT_REPLY_TOKENS + budget;
}

/** One line of `registry.jsonl`: what to build, never how (no implementation: the paper's anti-collusion rule). */
export const RegistryEntry = z.object({
  entry_id: z.string().min(1),
  function_name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a Python identifier'),
  query: z.string().min(1),
  domain: z.string().min(1),
});
export type RegistryEntry = z.infer<typeof RegistryEntry>;

/** Token counts as billed. `output_tokens` includes reasoning tokens; `reasoning_tokens` is that subset. */
export interface LlmUsage {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
}

/** How one attempt ended. */
export const ATTEMPT_OUTCOMES = ['accepted', 'rejected', 'parse_error', 'provider_error', 'budget_exceeded', 'infra_error'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface AttemptSummary {
  attempt_no: number;
  outcome: AttemptOutcome;
  /** Gate rejection messages, the parse error, or the provider error. */
  reasons: string[];
  model: string;
  usage: LlmUsage | null;
  cost_usd: number | null;
  latency_ms: number | null;
  /** true when the LLM response was taken from the ledger (a retried activity) rather than a new call. */
  reused: boolean;
}

/**
 * accepted / rejected are final; budget_exhausted, provider_error and infra_error (the gate's oracle or cache
 * failed twice: not a judgement of the entry) are redone when the run is resumed, whatever --max-attempts is.
 */
export type EntryStatus = 'accepted' | 'rejected' | 'budget_exhausted' | 'provider_error' | 'infra_error';

/** What `buildEntry` ends with; written to `runs/<run>/entries/<entry_id>.json`. */
export interface EntryResult {
  entry_id: string;
  status: EntryStatus;
  task: Task | null;
  attempts: AttemptSummary[];
  generator: GeneratorKind;
  finished_at: string;
}
