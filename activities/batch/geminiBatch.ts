/**
 * Gemini's batch mode (Gemini API `batches`, `models/{model}:batchGenerateContent`) through the official
 * @google/genai SDK (`ai.batches.create/get/list`), behind the same four calls as openaiBatch.ts (create, find,
 * retrieve, results), so batchActivities.ts records around it the same way.
 *
 * Requests go inline (`src` is a list of InlinedRequest, each the real-time call's parameters with
 * `metadata.key` = our custom_id); results come back inline in the batch (`dest.inlinedResponses`, in input order,
 * each with its metadata and either a GenerateContentResponse with its usageMetadata or an error), or, for large
 * results, in a responses file (`dest.fileName`, one `{key, response | error}` line per request) read through
 * `ai.files.download`. Inline input is limited to 20 MiB per batch (Gemini batch-mode guide): a generation
 * round's prompts are a few KB each, so several thousand requests fit (a larger round is refused before it is
 * recorded: checkGeminiInlineSize); the uploaded input file form is not used.
 *
 * A Gemini batch carries no key-value metadata, but it has a display name: `execretrieval-<key>`, the key a hash of
 * the metadata an OpenAI batch of the round would carry (run, round, requests hash). Finding the round's batch
 * again after a create whose answer was lost: the batch with that display name created since our record.
 *
 * States (as the SDK maps them): JOB_STATE_PENDING, JOB_STATE_RUNNING; terminal JOB_STATE_SUCCEEDED,
 * JOB_STATE_FAILED, JOB_STATE_CANCELLED, JOB_STATE_EXPIRED. Requests without a response in an ended batch
 * (expired, cancelled, failed) did not run and are not billed.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchJob, GenerateContentParameters, GoogleGenAI, InlinedResponse } from '@google/genai';
import type { LlmSettings } from '../../core/generation/types.ts';
import type { PromptMessages } from '../../core/generation/prompts.ts';
import { classifyProviderError, InvalidInputError, ProviderError } from '../llm/errors.ts';
import { geminiGenerateParams, geminiReply, type ProviderEnv } from '../llm/providers.ts';
import type { BatchResult, ProviderBatch } from './openaiBatch.ts';

/** Gemini's limit on a batch's inline requests (batch-mode guide: "total request size under 20MB"). */
export const GEMINI_INLINE_LIMIT_BYTES = 20 * 1024 * 1024;

const TERMINAL = new Set(['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED']);

async function client(e: ProviderEnv): Promise<GoogleGenAI> {
  const { GoogleGenAI } = await import('@google/genai');
  return new GoogleGenAI({ apiKey: e.apiKey, httpOptions: { ...(e.baseUrl ? { baseUrl: e.baseUrl } : {}), timeout: e.timeoutMs, retryOptions: { attempts: 1 } } });
}

/** The round's batch display name: a hash of its metadata (run, round, requests hash), so it names one round's requests. */
export function geminiDisplayName(metadata: Record<string, string>): string {
  return `execretrieval-${createHash('sha256').update(JSON.stringify(Object.entries(metadata).sort())).digest('hex').slice(0, 32)}`;
}

export function geminiBatchBody(s: LlmSettings, m: PromptMessages): unknown {
  return geminiGenerateParams(s, m);
}

/** The inlined requests of a round: each the real-time call's parameters, keyed by its custom_id. */
function inlinedRequests(requests: { custom_id: string; body: unknown }[]) {
  return requests.map((r) => {
    const { contents, config } = r.body as GenerateContentParameters;
    return { contents, config, metadata: { key: r.custom_id } };
  });
}

/**
 * Refuses a round too large to send inline, before anything is recorded or sent: Gemini would refuse the create,
 * and the same round would be refused on every retry.
 */
export function checkGeminiInlineSize(requests: { custom_id: string; body: unknown }[], limit = GEMINI_INLINE_LIMIT_BYTES): void {
  const bytes = Buffer.byteLength(JSON.stringify(inlinedRequests(requests)));
  if (bytes > limit) {
    throw new InvalidInputError(`--batch: this round's ${requests.length} Gemini requests are ${(bytes / 2 ** 20).toFixed(1)} MiB inline, over Gemini's ${(limit / 2 ** 20).toFixed(0)} MiB limit for inline batches; generate from a smaller registry per run, or without --batch`);
  }
}

function toProviderBatch(b: BatchJob): ProviderBatch {
  const state = b.state ?? 'JOB_STATE_UNSPECIFIED';
  const ended = TERMINAL.has(state);
  const end = b.endTime ?? b.updateTime;
  return {
    batch_id: b.name!,
    input_file_id: null,
    status: state,
    ended,
    // The responses file, when the batch answered in one (else its results are inline).
    output_file_id: b.dest?.fileName ?? null,
    error_file_id: null,
    created_ms: Date.parse(b.createTime ?? ''),
    ended_ms: ended && end ? Date.parse(end) : null,
    errors: [],
  };
}

async function sdk<T>(s: LlmSettings, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ProviderError || err instanceof InvalidInputError) throw err;
    throw classifyProviderError(err, s.provider, s.model);
  }
}

/** One inlined response as our result: the reply and its usage, or the request's own error. */
function resultOf(s: LlmSettings, id: string, r: InlinedResponse): BatchResult {
  if (r.response) return { custom_id: id, ok: true, reply: geminiReply(r.response, s.model) };
  const e = r.error as { code?: number; message?: string; status?: string } | undefined;
  return { custom_id: id, ok: false, http_status: e?.code ?? null, error: `${s.provider}/${s.model}: batch request failed${e?.code ? ` with HTTP ${e.code}` : ''}: ${e?.status ?? 'error'}: ${e?.message ?? ''}`.trim() };
}

/**
 * A responses file's lines (Gemini answers large batches in a file: one JSON line per request, in input order,
 * `{key, response}` or `{key, error}`), as inlined responses. The SDK's Node download writes to a path only.
 */
async function responsesFile(c: GoogleGenAI, fileName: string): Promise<InlinedResponse[]> {
  const dir = mkdtempSync(join(tmpdir(), 'gemini-batch-'));
  try {
    const path = join(dir, 'responses.jsonl');
    await c.files.download({ file: fileName, downloadPath: path });
    return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l, i) => {
      let line: { key?: string; response?: InlinedResponse['response']; error?: InlinedResponse['error'] };
      try {
        line = JSON.parse(l);
      } catch {
        throw new ProviderError(`${fileName} line ${i + 1}: not JSON`, true, null);
      }
      return { response: line.response, error: line.error, metadata: line.key === undefined ? undefined : { key: line.key } } as InlinedResponse;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const geminiBatches = {
  async create(s: LlmSettings, e: ProviderEnv, requests: { custom_id: string; body: unknown }[], metadata: Record<string, string>): Promise<ProviderBatch> {
    checkGeminiInlineSize(requests);
    return sdk(s, async () => toProviderBatch(await (await client(e)).batches.create({ model: s.model, src: inlinedRequests(requests), config: { displayName: geminiDisplayName(metadata) } })));
  },

  /**
   * The round's batch, if the provider has it: the one named with the round's key, created since `notBeforeMs`.
   * The list's order is not documented, so every page is read (the provider drops old batches, which bounds it).
   */
  async find(s: LlmSettings, e: ProviderEnv, metadata: Record<string, string>, notBeforeMs: number): Promise<ProviderBatch | null> {
    const name = geminiDisplayName(metadata);
    return sdk(s, async () => {
      for await (const b of await (await client(e)).batches.list({ config: { pageSize: 100 } })) {
        if (b.displayName === name && Date.parse(b.createTime ?? '') >= notBeforeMs) return toProviderBatch(b);
      }
      return null;
    });
  },

  async retrieve(s: LlmSettings, e: ProviderEnv, batchId: string): Promise<ProviderBatch> {
    return sdk(s, async () => toProviderBatch(await (await client(e)).batches.get({ name: batchId })));
  },

  /**
   * Every request's result, by custom_id: each inlined response by its `metadata.key` (or, lacking it, its place:
   * responses come in input order). A request with no response in an ended batch did not run: not billed.
   */
  async results(s: LlmSettings, e: ProviderEnv, b: { batch_id: string | null; requests?: { custom_id: string }[] }): Promise<Map<string, BatchResult>> {
    return sdk(s, async () => {
      const c = await client(e);
      const job = await c.batches.get({ name: b.batch_id! });
      const responses = job.dest?.fileName ? await responsesFile(c, job.dest.fileName) : (job.dest?.inlinedResponses ?? []);
      const out = new Map<string, BatchResult>();
      responses.forEach((r, i) => {
        const id = r.metadata?.key ?? b.requests?.[i]?.custom_id;
        if (id !== undefined) out.set(id, resultOf(s, id, r));
      });
      for (const q of b.requests ?? []) {
        if (!out.has(q.custom_id)) out.set(q.custom_id, { custom_id: q.custom_id, ok: false, http_status: null, error: `${s.provider}/${s.model}: batch request not run (${job.state ?? 'unknown state'})` });
      }
      return out;
    });
  },
};
