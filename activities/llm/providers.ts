/**
 * One request to an LLM through its official SDK, with usage normalised to `LlmUsage` (output includes
 * reasoning). Selected through a typed map, one function per (provider, endpoint). No Temporal here: the
 * activity around it (activities/generation) does ledger, budget and retry classes.
 *
 * Base URLs come from the standard environment variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, and our
 * GEMINI_BASE_URL since @google/genai reads none), which is also how tests point the SDKs at the fake server.
 */
// Types only here; the SDKs themselves are imported on first use (together ~1.5 s of start-up that a worker
// running only the mechanical generator or another queue never needs).
import type OpenAI from 'openai';
import type { GenerateContentParameters, GenerateContentResponse } from '@google/genai';
import { THINKING_BUDGET, type LlmProvider, type LlmSettings, type LlmUsage } from '../../core/generation/types.ts';
import type { PromptMessages } from '../../core/generation/prompts.ts';
import { classifyProviderError, InvalidInputError } from './errors.ts';

export interface LlmReply {
  text: string;
  usage: LlmUsage;
  /** The model id the provider says answered (may be a dated snapshot of the requested one). */
  model: string;
}

export interface ProviderEnv {
  apiKey: string;
  baseUrl?: string;
  /** Per-request timeout; Temporal's start-to-close bounds the whole attempt anyway. */
  timeoutMs: number;
}

const KEY_VARS: Record<LlmProvider, string[]> = {
  openai: ['OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
};
const BASE_VARS: Record<LlmProvider, string> = { openai: 'OPENAI_BASE_URL', anthropic: 'ANTHROPIC_BASE_URL', gemini: 'GEMINI_BASE_URL' };

/** Reads the key and base URL for a provider; a missing key is a clear, non-retryable error naming the variable. */
export function providerEnv(provider: LlmProvider, env: Readonly<Record<string, string | undefined>>, timeoutMs = 600_000): ProviderEnv {
  const keyVar = KEY_VARS[provider].find((v) => env[v]);
  if (!keyVar) throw new InvalidInputError(`${provider}: no API key in the environment (set ${KEY_VARS[provider].join(' or ')})`);
  return { apiKey: env[keyVar]!, baseUrl: env[BASE_VARS[provider]] || undefined, timeoutMs };
}

function thinkingBudget(effort: string | undefined): number | undefined {
  if (!effort) return undefined;
  if (/^\d+$/.test(effort)) return Number(effort);
  const b = THINKING_BUDGET[effort];
  if (b === undefined) throw new InvalidInputError(`reasoning_effort "${effort}": use ${Object.keys(THINKING_BUDGET).join('/')} or a token budget`);
  return b;
}

type Caller = (s: LlmSettings, m: PromptMessages, e: ProviderEnv) => Promise<LlmReply>;

const openaiClient = async (e: ProviderEnv) => {
  const { default: OpenAISdk } = await import('openai');
  return new OpenAISdk({ apiKey: e.apiKey, baseURL: e.baseUrl, maxRetries: 0, timeout: e.timeoutMs });
};

/**
 * The request bodies of the OpenAI endpoints, one definition for the real-time call and for a batch's input
 * line (activities/batch), so a batched request is the same request.
 */
export function chatCompletionsBody(s: LlmSettings, m: PromptMessages): OpenAI.ChatCompletionCreateParamsNonStreaming {
  return {
    model: s.model,
    messages: [
      { role: 'system', content: m.system },
      { role: 'user', content: m.user },
    ],
    response_format: { type: 'json_object' },
    max_completion_tokens: s.max_output_tokens,
    ...(s.reasoning_effort ? { reasoning_effort: s.reasoning_effort as OpenAI.ReasoningEffort } : {}),
  };
}

export function responsesBody(s: LlmSettings, m: PromptMessages): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  return {
    model: s.model,
    instructions: m.system,
    input: m.user,
    text: { format: { type: 'json_object' } },
    max_output_tokens: s.max_output_tokens,
    ...(s.reasoning_effort ? { reasoning: { effort: s.reasoning_effort as OpenAI.ReasoningEffort } } : {}),
  };
}

/** A chat completion's text and usage (output includes reasoning). */
export function chatCompletionsReply(r: Pick<OpenAI.ChatCompletion, 'choices' | 'model' | 'usage'>): LlmReply {
  const u = r.usage;
  return {
    text: r.choices[0]?.message?.content ?? '',
    model: r.model,
    usage: {
      input_tokens: u?.prompt_tokens ?? 0,
      output_tokens: u?.completion_tokens ?? 0,
      reasoning_tokens: u?.completion_tokens_details?.reasoning_tokens ?? 0,
    },
  };
}

/**
 * A response's text and usage. `output_text` is the SDK's convenience; a raw body (a batch output line) has only
 * `output`, whose message parts are joined the same way.
 */
export function responsesReply(r: Pick<OpenAI.Responses.Response, 'model' | 'usage' | 'output'> & { output_text?: string }): LlmReply {
  const u = r.usage;
  const text = r.output_text ?? r.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
  return {
    text,
    model: r.model,
    usage: { input_tokens: u?.input_tokens ?? 0, output_tokens: u?.output_tokens ?? 0, reasoning_tokens: u?.output_tokens_details?.reasoning_tokens ?? 0 },
  };
}

/** Anthropic's Messages request (also a Message Batches request's `params`). */
export function anthropicMessagesBody(s: LlmSettings, m: PromptMessages) {
  const budget = thinkingBudget(s.reasoning_effort);
  return {
    model: s.model,
    system: m.system,
    messages: [{ role: 'user' as const, content: m.user }],
    // Thinking counts against max_tokens, which must exceed the budget.
    max_tokens: budget ? Math.max(s.max_output_tokens, budget + 4096) : s.max_output_tokens,
    ...(budget ? { thinking: { type: 'enabled' as const, budget_tokens: budget } } : {}),
  };
}

export function anthropicMessagesReply(r: { content: { type: string; text?: string }[]; model: string; usage: { input_tokens: number; output_tokens: number } }): LlmReply {
  const text = r.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
  // Anthropic reports thinking inside output_tokens without a separate count.
  return { text, model: r.model, usage: { input_tokens: r.usage.input_tokens, output_tokens: r.usage.output_tokens, reasoning_tokens: 0 } };
}

const CALLERS: Record<string, Caller> = {
  async 'openai/chat.completions'(s, m, e) {
    const r = await (await openaiClient(e)).chat.completions.create(chatCompletionsBody(s, m));
    return chatCompletionsReply(r);
  },
  async 'openai/responses'(s, m, e) {
    const r = await (await openaiClient(e)).responses.create(responsesBody(s, m));
    return responsesReply(r);
  },
  async 'anthropic/messages'(s, m, e) {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ apiKey: e.apiKey, baseURL: e.baseUrl, maxRetries: 0, timeout: e.timeoutMs });
    return anthropicMessagesReply(await client.messages.create(anthropicMessagesBody(s, m)));
  },
  async 'gemini/generateContent'(s, m, e) {
    const { GoogleGenAI } = await import('@google/genai');
    const ai = new GoogleGenAI({
      apiKey: e.apiKey,
      httpOptions: { ...(e.baseUrl ? { baseUrl: e.baseUrl } : {}), timeout: e.timeoutMs, retryOptions: { attempts: 1 } },
    });
    return geminiReply(await ai.models.generateContent(geminiGenerateParams(s, m)), s.model);
  },
};

/**
 * Gemini's generateContent parameters, one definition for the real-time call and for a batch's inlined request
 * (activities/batch/geminiBatch.ts), so a batched request is the same request.
 */
export function geminiGenerateParams(s: LlmSettings, m: PromptMessages): GenerateContentParameters {
  const budget = thinkingBudget(s.reasoning_effort);
  return {
    model: s.model,
    contents: m.user,
    config: {
      systemInstruction: m.system,
      responseMimeType: 'application/json',
      maxOutputTokens: s.max_output_tokens,
      ...(budget !== undefined ? { thinkingConfig: { thinkingBudget: budget } } : {}),
    },
  };
}

/**
 * A GenerateContentResponse's text and usage. The text is the answer's non-thought text parts joined, as the
 * SDK's `text` getter does: a batch's inlined response is a plain object without that getter.
 */
export function geminiReply(r: Pick<GenerateContentResponse, 'candidates' | 'usageMetadata' | 'modelVersion'>, requestedModel: string): LlmReply {
  const parts = r.candidates?.[0]?.content?.parts ?? [];
  const text = parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text).join('');
  const u = r.usageMetadata;
  const thoughts = u?.thoughtsTokenCount ?? 0;
  // Gemini reports thoughts apart from candidates; both are billed as output.
  return {
    text,
    model: r.modelVersion ?? requestedModel,
    usage: { input_tokens: u?.promptTokenCount ?? 0, output_tokens: (u?.candidatesTokenCount ?? 0) + thoughts, reasoning_tokens: thoughts },
  };
}

/**
 * The most output tokens (reasoning included) a request with these settings can be billed for: what each
 * caller above asks for. Anthropic's max_tokens already holds the thinking budget; Gemini's thinking budget is
 * counted on top of maxOutputTokens to stay an upper bound.
 */
export function outputAllowance(s: LlmSettings): number {
  if (s.provider === 'openai') return s.max_output_tokens;
  const budget = thinkingBudget(s.reasoning_effort);
  if (s.provider === 'anthropic') return budget ? Math.max(s.max_output_tokens, budget + 4096) : s.max_output_tokens;
  return s.max_output_tokens + (budget ?? 0);
}

/** Sends one request; any SDK error comes back as a classified `ProviderError`. */
export async function callLlm(s: LlmSettings, m: PromptMessages, e: ProviderEnv): Promise<LlmReply> {
  const caller = CALLERS[`${s.provider}/${s.endpoint}`];
  if (!caller) throw new InvalidInputError(`no caller for ${s.provider}/${s.endpoint}`);
  try {
    return await caller(s, m, e);
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
    throw classifyProviderError(err, s.provider, s.model);
  }
}
