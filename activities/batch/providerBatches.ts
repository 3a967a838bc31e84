/**
 * The batch API of a generation's provider, behind one shape: OpenAI's Batch API (openaiBatch.ts), Anthropic's
 * Message Batches (anthropicBatch.ts) or Gemini's batch mode (geminiBatch.ts). batchActivities.ts records around these calls the same way for both.
 */
import type { LlmSettings } from '../../core/generation/types.ts';
import type { PromptMessages } from '../../core/generation/prompts.ts';
import { InvalidInputError } from '../llm/errors.ts';
import type { ProviderEnv } from '../llm/providers.ts';
import { anthropicBatchBody, anthropicBatches } from './anthropicBatch.ts';
import { checkGeminiInlineSize, geminiBatchBody, geminiBatches } from './geminiBatch.ts';
import { openaiBatchBody, openaiBatches, type BatchResult, type ProviderBatch } from './openaiBatch.ts';

export interface ProviderBatchApi {
  /** One request's body: exactly what the real-time call sends. */
  body(s: LlmSettings, m: PromptMessages): unknown;
  /** Refuses (InvalidInputError) a round the provider would refuse whatever the retry, before it is recorded. */
  check?(requests: { custom_id: string; body: unknown }[]): void;
  create(s: LlmSettings, e: ProviderEnv, requests: { custom_id: string; body: unknown }[], metadata: Record<string, string>): Promise<ProviderBatch>;
  /** The round's batch if the provider has it (created since `notBeforeMs`, `requests` requests, the round's metadata). */
  find(s: LlmSettings, e: ProviderEnv, metadata: Record<string, string>, notBeforeMs: number, requests: number): Promise<ProviderBatch | null>;
  retrieve(s: LlmSettings, e: ProviderEnv, batchId: string): Promise<ProviderBatch>;
  /** Every request's result, by custom_id (`requests`: the batch's, in the order they were sent). */
  results(s: LlmSettings, e: ProviderEnv, b: Pick<ProviderBatch, 'output_file_id' | 'error_file_id'> & { batch_id: string | null; requests: { custom_id: string }[] }, metadata: Record<string, string>): Promise<Map<string, BatchResult>>;
}

const APIS: Record<string, ProviderBatchApi> = {
  openai: {
    body: openaiBatchBody,
    create: openaiBatches.create,
    find: (s, e, metadata, notBeforeMs) => openaiBatches.find(s, e, metadata, notBeforeMs),
    retrieve: openaiBatches.retrieve,
    results: (s, e, b) => openaiBatches.results(s, e, b),
  },
  anthropic: { body: anthropicBatchBody, ...anthropicBatches },
  gemini: {
    body: geminiBatchBody,
    check: (requests) => checkGeminiInlineSize(requests),
    create: geminiBatches.create,
    find: (s, e, metadata, notBeforeMs) => geminiBatches.find(s, e, metadata, notBeforeMs),
    retrieve: geminiBatches.retrieve,
    results: (s, e, b) => geminiBatches.results(s, e, b),
  },
};

/** Providers whose batch API generation uses. */
export const BATCH_PROVIDERS = Object.keys(APIS);

export function batchApiOf(s: Pick<LlmSettings, 'provider'>): ProviderBatchApi {
  const api = APIS[s.provider];
  if (!api) throw new InvalidInputError(`--batch: ${s.provider} batches are not wired into generation (${BATCH_PROVIDERS.join(', ')}); run without --batch`);
  return api;
}
