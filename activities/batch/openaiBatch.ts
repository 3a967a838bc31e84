/**
 * OpenAI's Batch API through the official SDK: a JSONL file of requests (purpose `batch`), one batch per file with
 * our metadata, its status, and its output and error files read back per custom_id. No ledger and no Temporal
 * here: activities/batch/batchActivities.ts records around these calls.
 *
 * Status words (Batch object): validating, in_progress, finalizing, cancelling are still running; completed,
 * expired, cancelled, failed are terminal. An expired or cancelled batch still has output for the requests it
 * finished (billed) and lists the rest in its error file (`batch_expired` / `batch_cancelled`, not billed).
 */
import type OpenAI from 'openai';
import type { LlmSettings } from '../../core/generation/types.ts';
import type { PromptMessages } from '../../core/generation/prompts.ts';
import { classifyProviderError, InvalidInputError } from '../llm/errors.ts';
import { chatCompletionsBody, chatCompletionsReply, responsesBody, responsesReply, type LlmReply, type ProviderEnv } from '../llm/providers.ts';

export const OPENAI_BATCH_ENDPOINTS = { 'chat.completions': '/v1/chat/completions', responses: '/v1/responses' } as const;
const TERMINAL = new Set(['completed', 'expired', 'cancelled', 'failed']);

export interface ProviderBatch {
  batch_id: string;
  input_file_id: string | null;
  status: string;
  ended: boolean;
  output_file_id: string | null;
  error_file_id: string | null;
  /** Provider timestamps (ms): creation and, once ended, the end (completed/expired/cancelled/failed). */
  created_ms: number;
  ended_ms: number | null;
  /** A `failed` batch's validation errors (the whole batch was refused: nothing in it ran or was billed). */
  errors: string[];
}

/** One request's result: the reply (text, usage, model) or why it failed (HTTP status, provider message or code). */
export type BatchResult = { custom_id: string; ok: true; reply: LlmReply } | { custom_id: string; ok: false; http_status: number | null; error: string };

async function client(e: ProviderEnv): Promise<OpenAI> {
  const { default: OpenAISdk } = await import('openai');
  return new OpenAISdk({ apiKey: e.apiKey, baseURL: e.baseUrl, maxRetries: 0, timeout: e.timeoutMs });
}

function endpointOf(s: LlmSettings): '/v1/chat/completions' | '/v1/responses' {
  const ep = OPENAI_BATCH_ENDPOINTS[s.endpoint as keyof typeof OPENAI_BATCH_ENDPOINTS];
  if (!ep) throw new InvalidInputError(`--batch: no batch endpoint for openai/${s.endpoint} (use responses or chat.completions)`);
  return ep;
}

/** The request body for one prompt: exactly what the real-time call sends. */
export function openaiBatchBody(s: LlmSettings, m: PromptMessages): unknown {
  return s.endpoint === 'chat.completions' ? chatCompletionsBody(s, m) : responsesBody(s, m);
}

function toProviderBatch(b: OpenAI.Batches.Batch): ProviderBatch {
  const end = b.completed_at ?? b.expired_at ?? b.cancelled_at ?? b.failed_at ?? null;
  return {
    batch_id: b.id,
    input_file_id: b.input_file_id ?? null,
    status: b.status,
    ended: TERMINAL.has(b.status),
    output_file_id: b.output_file_id ?? null,
    error_file_id: b.error_file_id ?? null,
    created_ms: b.created_at * 1000,
    ended_ms: end === null ? null : end * 1000,
    errors: (b.errors?.data ?? []).map((e) => `${e.line !== null && e.line !== undefined ? `line ${e.line}: ` : ''}${e.code ?? ''} ${e.message ?? ''}`.trim()),
  };
}

/** Any SDK error as our classified ProviderError (429/5xx retryable, other 4xx not). */
async function sdk<T>(s: LlmSettings, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
    throw classifyProviderError(err, s.provider, s.model);
  }
}

export const openaiBatches = {
  /** Uploads the requests as a `batch` file and creates the batch with `metadata`. */
  async create(s: LlmSettings, e: ProviderEnv, requests: { custom_id: string; body: unknown }[], metadata: Record<string, string>): Promise<ProviderBatch> {
    const url = endpointOf(s);
    return sdk(s, async () => {
      const c = await client(e);
      const { toFile } = await import('openai');
      const jsonl = requests.map((r) => JSON.stringify({ custom_id: r.custom_id, method: 'POST', url, body: r.body })).join('\n') + '\n';
      const file = await c.files.create({ file: await toFile(Buffer.from(jsonl, 'utf8'), `${metadata.execretrieval_round ?? 'batch'}.jsonl`), purpose: 'batch' });
      return toProviderBatch(await c.batches.create({ input_file_id: file.id, endpoint: url, completion_window: '24h', metadata }));
    });
  },

  /**
   * The batch created with exactly this metadata, if any: the list is newest first, so the scan stops at the
   * first batch created before `notBeforeMs` (older than our record of it: it cannot be ours).
   */
  async find(s: LlmSettings, e: ProviderEnv, metadata: Record<string, string>, notBeforeMs: number): Promise<ProviderBatch | null> {
    return sdk(s, async () => {
      const c = await client(e);
      for await (const b of c.batches.list({ limit: 100 })) {
        if (b.created_at * 1000 < notBeforeMs) return null;
        const m = b.metadata ?? {};
        if (Object.entries(metadata).every(([k, v]) => m[k] === v)) return toProviderBatch(b);
      }
      return null;
    });
  },

  async retrieve(s: LlmSettings, e: ProviderEnv, batchId: string): Promise<ProviderBatch> {
    return sdk(s, async () => toProviderBatch(await (await client(e)).batches.retrieve(batchId)));
  },

  /** Every request's result from the output file (answers) and the error file (HTTP errors, expired, cancelled). */
  async results(s: LlmSettings, e: ProviderEnv, b: Pick<ProviderBatch, 'output_file_id' | 'error_file_id'>): Promise<Map<string, BatchResult>> {
    return sdk(s, async () => {
      const c = await client(e);
      const out = new Map<string, BatchResult>();
      for (const id of [b.output_file_id, b.error_file_id]) {
        if (!id) continue;
        const text = await (await c.files.content(id)).text();
        for (const line of text.split('\n')) {
          if (!line.trim()) continue;
          const r = JSON.parse(line) as { custom_id: string; response: { status_code: number; body: any } | null; error: { code?: string; message?: string } | null };
          if (r.response && r.response.status_code === 200) {
            const reply = s.endpoint === 'chat.completions' ? chatCompletionsReply(r.response.body) : responsesReply(r.response.body);
            out.set(r.custom_id, { custom_id: r.custom_id, ok: true, reply });
          } else if (r.response) {
            const msg = r.response.body?.error?.message ?? JSON.stringify(r.response.body).slice(0, 300);
            out.set(r.custom_id, { custom_id: r.custom_id, ok: false, http_status: r.response.status_code, error: `${s.provider}/${s.model}: batch request failed with HTTP ${r.response.status_code}: ${msg}` });
          } else {
            out.set(r.custom_id, { custom_id: r.custom_id, ok: false, http_status: null, error: `${s.provider}/${s.model}: batch request not run (${r.error?.code ?? 'unknown'}): ${r.error?.message ?? ''}`.trim() });
          }
        }
      }
      return out;
    });
  },
};
