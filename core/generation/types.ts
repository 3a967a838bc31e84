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
    max_output_tokens: z.number().int().positive().default(16_000),
  })
  .superRefine((s, ctx) => {
    const allowed = ENDPOINTS[s.provider] as readonly string[];
    if (!allowed.includes(s.endpoint)) {
      ctx.addIssue({ code: 'custom', path: ['endpoint'], message: `provider ${s.provider} has endpoints ${allowed.join(', ')}, not "${s.endpoint}"` });
    }
  });
export type LlmSettings = z.infer<typeof LlmSettings>;

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
