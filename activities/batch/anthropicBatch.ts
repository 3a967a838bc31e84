/**
 * Anthropic's Message Batches through the official SDK, behind the same four calls as openaiBatch.ts (create,
 * find, retrieve, results), so batchActivities.ts records around either the same way.
 *
 * A Message Batch carries no metadata, so the round's key goes into every request's custom_id instead:
 * `k<key>_<our custom_id>`, the key a hash of the metadata an OpenAI batch of the round would carry (run, round,
 * requests hash). Finding the round's batch again after a create whose answer was lost: the batches created since
 * our record (the list is newest first) with the round's request count are candidates; an ended one is ours when
 * its results carry our key. A running one cannot be told apart (its requests are not readable until it ends), so
 * `find` answers "not known yet" (an Undecided error, retried) rather than create a second batch that would pay
 * for the same requests twice.
 *
 * Status: processing_status in_progress | canceling | ended. An ended batch's results are one line per request:
 * succeeded (billed), errored (an HTTP error), canceled or expired (not billed).
 */
import { createHash } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { LlmSettings } from '../../core/generation/types.ts';
import type { PromptMessages } from '../../core/generation/prompts.ts';
import { classifyProviderError, ProviderError } from '../llm/errors.ts';
import { anthropicMessagesBody, anthropicMessagesReply, type ProviderEnv } from '../llm/providers.ts';
import type { BatchResult, ProviderBatch } from './openaiBatch.ts';

async function client(e: ProviderEnv): Promise<Anthropic> {
  const { default: AnthropicSdk } = await import('@anthropic-ai/sdk');
  return new AnthropicSdk({ apiKey: e.apiKey, baseURL: e.baseUrl, maxRetries: 0, timeout: e.timeoutMs });
}

/** The round's key in each custom_id (Anthropic: 1-64 of [a-zA-Z0-9_-]; ours are `<round>-<n>`). */
export function anthropicRoundKey(metadata: Record<string, string>): string {
  return `k${createHash('sha256').update(JSON.stringify(Object.entries(metadata).sort())).digest('hex').slice(0, 24)}`;
}
const wire = (key: string, customId: string) => `${key}_${customId}`;
const ours = (key: string, wireId: string) => (wireId.startsWith(`${key}_`) ? wireId.slice(key.length + 1) : null);

export function anthropicBatchBody(s: LlmSettings, m: PromptMessages): unknown {
  return anthropicMessagesBody(s, m);
}

function toProviderBatch(b: Anthropic.Messages.MessageBatch): ProviderBatch {
  const ended = b.processing_status === 'ended';
  return {
    batch_id: b.id,
    input_file_id: null,
    status: b.processing_status,
    ended,
    output_file_id: null,
    error_file_id: null,
    created_ms: Date.parse(b.created_at),
    ended_ms: ended && b.ended_at ? Date.parse(b.ended_at) : null,
    errors: [],
  };
}

async function sdk<T>(s: LlmSettings, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    throw classifyProviderError(err, s.provider, s.model);
  }
}

/** Every request's result, by our custom_id; the key's own requests only. */
async function resultsOf(s: LlmSettings, c: Anthropic, batchId: string, key: string): Promise<Map<string, BatchResult>> {
  const out = new Map<string, BatchResult>();
  for await (const r of await c.messages.batches.results(batchId)) {
    const id = ours(key, r.custom_id);
    if (id === null) continue;
    const res = r.result;
    if (res.type === 'succeeded') out.set(id, { custom_id: id, ok: true, reply: anthropicMessagesReply(res.message) });
    else if (res.type === 'errored') out.set(id, { custom_id: id, ok: false, http_status: null, error: `${s.provider}/${s.model}: batch request failed: ${res.error.error?.type ?? 'error'}: ${res.error.error?.message ?? ''}`.trim() });
    else out.set(id, { custom_id: id, ok: false, http_status: null, error: `${s.provider}/${s.model}: batch request not run (${res.type})` });
  }
  return out;
}

export const anthropicBatches = {
  async create(s: LlmSettings, e: ProviderEnv, requests: { custom_id: string; body: unknown }[], metadata: Record<string, string>): Promise<ProviderBatch> {
    const key = anthropicRoundKey(metadata);
    return sdk(s, async () => {
      const c = await client(e);
      const params = requests.map((r) => ({ custom_id: wire(key, r.custom_id), params: r.body as Anthropic.Messages.MessageCreateParamsNonStreaming }));
      return toProviderBatch(await c.messages.batches.create({ requests: params }));
    });
  },

  /**
   * The round's batch, if the provider has it: among the batches created since `notBeforeMs` with `requests`
   * requests, an ended one whose results carry the round's key. A candidate still running cannot be checked: an
   * `Undecided` error (retryable) until it ends.
   */
  async find(s: LlmSettings, e: ProviderEnv, metadata: Record<string, string>, notBeforeMs: number, requests: number): Promise<ProviderBatch | null> {
    const key = anthropicRoundKey(metadata);
    return sdk(s, async () => {
      const c = await client(e);
      const running: string[] = [];
      for await (const b of c.messages.batches.list({ limit: 100 })) {
        if (Date.parse(b.created_at) < notBeforeMs) break;
        const counts = b.request_counts;
        if (counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired !== requests) continue;
        if (b.processing_status !== 'ended') {
          running.push(b.id);
          continue;
        }
        if ((await resultsOf(s, c, b.id, key)).size > 0) return toProviderBatch(b);
      }
      if (running.length) {
        throw new ProviderError(`${s.provider}/${s.model}: message batch ${running.join(', ')} (created since this round was recorded, ${requests} requests) may be this round's; whether it is shows once it ends: not creating another meanwhile`, true, null);
      }
      return null;
    });
  },

  async retrieve(s: LlmSettings, e: ProviderEnv, batchId: string): Promise<ProviderBatch> {
    return sdk(s, async () => toProviderBatch(await (await client(e)).messages.batches.retrieve(batchId)));
  },

  async results(s: LlmSettings, e: ProviderEnv, b: { batch_id: string | null }, metadata: Record<string, string>): Promise<Map<string, BatchResult>> {
    return sdk(s, async () => resultsOf(s, await client(e), b.batch_id!, anthropicRoundKey(metadata)));
  },
};
