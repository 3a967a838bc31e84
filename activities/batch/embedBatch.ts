/**
 * `embed --batch`: a hosted OpenAI embedding configuration's missing texts sent through OpenAI's Batch API
 * (`/v1/embeddings` lines, half the configuration's price), on the `embed` queue. workflows/embedSweep.ts runs
 * the rounds: submit, poll on a durable timer, ingest; then the matrices are written from the cache as usual.
 *
 * Kill safety is generation's (activities/batch/batchActivities.ts), step by step:
 *  - embedBatchSubmit: the round's batch is recorded (`preparing`, with each line's side, fingerprint and text
 *    hashes) BEFORE the upload and the create, and (`submitted`, with the batch id) AFTER. A retry that finds
 *    `preparing` asks the provider's list for a batch with the round's metadata (run, configuration and round,
 *    requests hash): found, it is adopted; not found, it was never created and is created now from the recorded
 *    lines (texts looked up again by hash in the benchmark). `submitted` or later: nothing is sent.
 *  - embedBatchPoll: reads the provider's status; harmless to repeat.
 *  - embedBatchIngest: downloads the output and error files, stores the vectors in the embedding cache, then
 *    writes the ledger rows and the `ingested` mark in one transaction; a retry after that writes nothing.
 * A line that failed inside the batch (HTTP error, expired, cancelled) is not billed; its texts are still missing,
 * so the next round's batch carries them.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type OpenAI from 'openai';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { invocationFingerprint, prepareText, sideOf, type Side } from '../../core/embeddings/prepare.ts';
import { l2Normalize } from '../../core/embeddings/vectors.ts';
import { embeddingBatchBound } from '../../core/generation/cost.ts';
import { apiKeyEnv, apiKeyOf, configuredBaseUrl } from '../embeddings/availability.ts';
import { providerBaseUrl } from '../embeddings/baseUrls.ts';
import { textHash, type EmbeddingCache } from '../embeddings/cache.ts';
import { loadBenchmarkItems } from '../embeddings/benchmarkItems.ts';
import { checkBatch, ProviderResponseError, type ProviderEnv } from '../embeddings/types.ts';
import { WORKER_ID } from '../embeddings/batchBook.ts';
import { runPaths } from '../generation/runFiles.ts';
import { embedBatchStoreAt, type EmbedBatchRequest, type EmbedBatchRow, type EmbedLineResult } from './embedStore.ts';

export const EMBEDDINGS_ENDPOINT = '/v1/embeddings';
const TERMINAL = new Set(['completed', 'expired', 'cancelled', 'failed']);

/**
 * OpenAI's Batch API bills half the synchronous price, embeddings included (platform.openai.com/docs/guides/batch;
 * the same source as data/prices.json → batch). Applied to the configuration's `price_usd_per_million_tokens`.
 */
export const EMBEDDING_BATCH_PRICE_FACTOR = 0.5;

/** Whether `embed --batch` sends this configuration through a batch API (others stay on the real-time path). */
export const batchable = (config: EmbeddingConfig) => config.provider === 'openai';

export interface EmbedRoundInput {
  runDir: string;
  config: EmbeddingConfig;
  round: number;
}

export interface EmbedSubmitOutcome {
  /** null: nothing missing (every text of the configuration is in the cache). */
  batch_id: string | null;
  requests: number;
  /** created now, adopted from the provider's list, already recorded by an earlier try or sweep. */
  how: 'created' | 'adopted' | 'recorded' | 'none';
}

export interface EmbedTextCounts {
  texts: number;
  unique_texts: number;
  cached: number;
}

export interface EmbedIngestOutcome {
  answered: number;
  failed: number;
  texts: number;
  tokens_reported: number;
  tokens_estimated: number;
  cost_usd: number;
}

const runIdOf = (runDir: string) => basename(runDir);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The metadata a round's batch is created with and found again by (OpenAI: 16 pairs, values up to 512 chars). */
export function embedBatchMetadata(runId: string, configId: string, round: number, requestsSha256: string): Record<string, string> {
  return { execretrieval_run: runId.slice(0, 512), execretrieval_round: `embed:${configId}:${round}`.slice(0, 512), requests_sha256: requestsSha256 };
}

/** The line body: exactly what the real-time provider (activities/embeddings/providers/openai.ts) sends. */
function lineBody(config: EmbeddingConfig, texts: readonly string[]): Record<string, unknown> {
  return { model: config.model, input: [...texts], encoding_format: 'float', ...(config.output_dimensionality ? { dimensions: config.output_dimensionality } : {}) };
}

function sweepId(): string {
  try {
    const w = Context.current().info.workflowExecution;
    return w ? `${w.workflowId}/${w.runId}` : 'local';
  } catch {
    return 'local';
  }
}

/**
 * The OpenAI client for a configuration's batches: its key, and its server as the real-time path finds it (the
 * configuration's own, else the injected or OPENAI_BASE_URL one). Used by the activities and the invoice check.
 */
export async function embedBatchClient(config: EmbeddingConfig, penv: ProviderEnv): Promise<OpenAI> {
  const apiKey = apiKeyOf(config, penv);
  if (!apiKey) throw ApplicationFailure.create({ type: 'NonRetryableProviderError', message: `${config.config_id}: no API key: set ${apiKeyEnv(config) ?? 'api_key_env'}`, nonRetryable: true });
  const { default: OpenAISdk } = await import('openai');
  return new OpenAISdk({ apiKey, baseURL: configuredBaseUrl(config, penv) ?? providerBaseUrl('openai', penv), maxRetries: 0, timeout: 120_000 });
}

export function createEmbedBatchActivities(deps: { penv: ProviderEnv; cache: () => EmbeddingCache; log?: (msg: string) => void }) {
  const client = (config: EmbeddingConfig) => embedBatchClient(config, deps.penv);

  /** hash → text sent, for each side of the benchmark under this configuration (templates applied). */
  function textsBySide(runDir: string, config: EmbeddingConfig): Record<Side, Map<string, string>> {
    const items = loadBenchmarkItems(runDir);
    const out = { query: new Map<string, string>(), document: new Map<string, string>() };
    for (const [side, list] of [['query', items.queries], ['document', items.corpus]] as const) {
      const s = sideOf(config, side);
      for (const it of list) {
        const t = prepareText(s, it.text);
        out[side].set(textHash(t), t);
      }
    }
    return out;
  }

  /** The lines this round would send: every text missing from the cache, `batch_size` per line, per side. */
  function plan(input: EmbedRoundInput): EmbedBatchRequest[] {
    const { config } = input;
    const price = (config.price_usd_per_million_tokens ?? 0) * EMBEDDING_BATCH_PRICE_FACTOR;
    const texts = textsBySide(input.runDir, config);
    const requests: EmbedBatchRequest[] = [];
    for (const side of ['query', 'document'] as const) {
      const fingerprint = invocationFingerprint(config, side);
      const found = deps.cache().getMany(config.config_id, fingerprint, [...texts[side].keys()]);
      const missing = [...texts[side].entries()].filter(([h]) => !found.has(h));
      for (let i = 0; i < missing.length; i += config.batch_size) {
        const chunk = missing.slice(i, i + config.batch_size);
        const bound = embeddingBatchBound(chunk.map(([, t]) => t), price);
        requests.push({ custom_id: `${input.round}-${requests.length + 1}`, side, fingerprint, hashes: chunk.map(([h]) => h), ...bound });
      }
    }
    return requests;
  }

  /** The recorded lines' bodies, texts found again by hash (a text no longer in the benchmark cannot be sent). */
  function bodiesOf(input: EmbedRoundInput, row: EmbedBatchRow): { custom_id: string; body: unknown }[] {
    const texts = textsBySide(input.runDir, input.config);
    return row.requests.map((q) => {
      const ts = q.hashes.map((h) => {
        const t = texts[q.side].get(h);
        if (t === undefined) throw ApplicationFailure.create({ type: 'InvalidInputError', message: `${input.config.config_id}: round ${row.round}'s recorded batch holds a text no longer in ${input.runDir} (benchmark changed since): use a new run`, nonRetryable: true });
        return t;
      });
      return { custom_id: q.custom_id, body: lineBody(input.config, ts) };
    });
  }

  async function createAndRecord(input: EmbedRoundInput, row: EmbedBatchRow): Promise<EmbedSubmitOutcome> {
    const c = await client(input.config);
    const { toFile } = await import('openai');
    const jsonl = bodiesOf(input, row).map((r) => JSON.stringify({ custom_id: r.custom_id, method: 'POST', url: EMBEDDINGS_ENDPOINT, body: r.body })).join('\n') + '\n';
    const file = await c.files.create({ file: await toFile(Buffer.from(jsonl, 'utf8'), `embed-${row.config_id}-${row.round}.jsonl`), purpose: 'batch' });
    const b = await c.batches.create({ input_file_id: file.id, endpoint: EMBEDDINGS_ENDPOINT, completion_window: '24h', metadata: embedBatchMetadata(row.run_id, row.config_id, row.round, row.requests_sha256) });
    // Recorded after: from here on a retry finds the id and sends nothing.
    embedBatchStoreAt(runPaths(input.runDir).ledger).submitted(row.run_id, row.config_id, row.round, b.id, b.input_file_id ?? null, b.status);
    return { batch_id: b.id, requests: row.request_count, how: 'created' };
  }

  return {
    /**
     * The sweep's text counts before its first round, as the real-time path reports them (embedItems): every item
     * of both sides, the distinct texts sent, and those already in the embedding cache. A text that a recorded
     * batch not yet ingested (an earlier try's or sweep's) will bring is not counted cached: its round's ingestion
     * counts it embedded, so cached + embedded = the distinct texts once the sweep is done.
     */
    async embedBatchCounts(input: { runDir: string; config: EmbeddingConfig }): Promise<EmbedTextCounts> {
      const { config } = input;
      const items = loadBenchmarkItems(input.runDir);
      const texts = textsBySide(input.runDir, config);
      const pending = embedBatchStoreAt(runPaths(input.runDir).ledger)
        .list(runIdOf(input.runDir), config.config_id)
        .filter((r) => r.status !== 'ingested')
        .flatMap((r) => r.requests.flatMap((q) => q.hashes.map((h) => `${q.side}:${h}`)));
      const coming = new Set(pending);
      const out: EmbedTextCounts = { texts: items.queries.length + items.corpus.length, unique_texts: 0, cached: 0 };
      for (const side of ['query', 'document'] as const) {
        out.unique_texts += texts[side].size;
        const found = deps.cache().getMany(config.config_id, invocationFingerprint(config, side), [...texts[side].keys()]);
        for (const h of found.keys()) if (!coming.has(`${side}:${h}`)) out.cached += 1;
      }
      return out;
    },

    async embedBatchSubmit(input: EmbedRoundInput): Promise<EmbedSubmitOutcome> {
      const store = embedBatchStoreAt(runPaths(input.runDir).ledger);
      const runId = runIdOf(input.runDir);
      let row = store.get(runId, input.config.config_id, input.round);
      if (!row) {
        const requests = plan(input);
        if (requests.length === 0) return { batch_id: null, requests: 0, how: 'none' };
        const hash = sha256(JSON.stringify(requests.map((q) => [q.custom_id, q.side, q.fingerprint, q.hashes])) + JSON.stringify(lineBody(input.config, [])));
        // Recorded before anything leaves the machine.
        store.prepare({ run_id: runId, config_id: input.config.config_id, round: input.round, provider: input.config.provider, model: input.config.model, requests_sha256: hash, requests, config: input.config });
        row = store.get(runId, input.config.config_id, input.round)!;
        if (row.requests_sha256 === hash && row.status === 'preparing') return createAndRecord(input, row);
      }
      if (row.status !== 'preparing') return { batch_id: row.batch_id, requests: row.request_count, how: 'recorded' };
      // A record without a batch id: the create may have reached the provider. Ask its list before creating.
      const c = await client(input.config);
      const want = embedBatchMetadata(runId, row.config_id, row.round, row.requests_sha256);
      const notBefore = Date.parse(row.prepared_at) - 60_000;
      for await (const b of c.batches.list({ limit: 100 })) {
        if (b.created_at * 1000 < notBefore) break;
        const m = b.metadata ?? {};
        if (Object.entries(want).every(([k, v]) => m[k] === v)) {
          store.submitted(runId, row.config_id, row.round, b.id, b.input_file_id ?? null, b.status);
          return { batch_id: b.id, requests: row.request_count, how: 'adopted' };
        }
      }
      return createAndRecord(input, row);
    },

    async embedBatchPoll(input: EmbedRoundInput): Promise<{ ended: boolean; status: string }> {
      const store = embedBatchStoreAt(runPaths(input.runDir).ledger);
      const row = store.get(runIdOf(input.runDir), input.config.config_id, input.round);
      if (!row?.batch_id) throw ApplicationFailure.create({ type: 'InvalidInputError', message: `${input.config.config_id}: round ${input.round} has no submitted batch`, nonRetryable: true });
      if (row.status === 'ended' || row.status === 'ingested') return { ended: true, status: row.provider_status ?? row.status };
      const b = await (await client(input.config)).batches.retrieve(row.batch_id);
      const end = b.completed_at ?? b.expired_at ?? b.cancelled_at ?? b.failed_at ?? null;
      const ended = TERMINAL.has(b.status);
      store.polled(row.run_id, row.config_id, row.round, b.status, ended ? { output_file_id: b.output_file_id ?? null, error_file_id: b.error_file_id ?? null, ended_at: new Date((end ?? Date.now() / 1000) * 1000).toISOString() } : null);
      return { ended, status: b.status };
    },

    async embedBatchIngest(input: EmbedRoundInput): Promise<EmbedIngestOutcome> {
      const { config } = input;
      const store = embedBatchStoreAt(runPaths(input.runDir).ledger);
      const row = store.get(runIdOf(input.runDir), config.config_id, input.round);
      const none: EmbedIngestOutcome = { answered: 0, failed: 0, texts: 0, tokens_reported: 0, tokens_estimated: 0, cost_usd: 0 };
      if (!row || row.status === 'ingested') return none;
      if (row.status !== 'ended') throw ApplicationFailure.create({ type: 'InvalidInputError', message: `${config.config_id}: round ${input.round}'s batch has not ended`, nonRetryable: true });
      const c = await client(config);
      const byId = new Map(row.requests.map((q) => [q.custom_id, q]));
      const results = new Map<string, EmbedLineResult>();
      const price = (config.price_usd_per_million_tokens ?? 0) * EMBEDDING_BATCH_PRICE_FACTOR;
      const out = { ...none };
      for (const id of [row.output_file_id, row.error_file_id]) {
        if (!id) continue;
        const text = await (await c.files.content(id)).text();
        for (const line of text.split('\n')) {
          if (!line.trim()) continue;
          const r = JSON.parse(line) as { custom_id: string; response: { status_code: number; body: any } | null; error: { code?: string; message?: string } | null };
          const q = byId.get(r.custom_id);
          if (!q) continue;
          if (r.response?.status_code === 200) {
            const data = [...(r.response.body.data as { index: number; embedding: number[] }[])].sort((a, b) => a.index - b.index);
            const vectors = data.map((d) => Float32Array.from(d.embedding));
            try {
              checkBatch(config, q.hashes.length, vectors);
            } catch (e) {
              // A malformed answer is billed but unusable: the configuration fails with the reason, as in real time.
              if (e instanceof ProviderResponseError) throw ApplicationFailure.create({ type: 'NonRetryableProviderError', message: e.message, nonRetryable: true });
              throw e;
            }
            deps.cache().putMany(config.config_id, q.fingerprint, q.hashes.map((h, i) => ({ hash: h, vector: config.normalize ? l2Normalize(vectors[i]) : vectors[i] })));
            const tokens: number | null = r.response.body.usage?.prompt_tokens ?? null;
            const estimated = tokens == null ? q.input_tokens_est : null;
            const cost_usd = ((tokens ?? estimated!) * price) / 1e6;
            results.set(q.custom_id, { custom_id: q.custom_id, ok: true, tokens, tokens_estimated: estimated, cost_usd });
            out.answered += 1;
            out.texts += q.hashes.length;
            out.tokens_reported += tokens ?? 0;
            out.tokens_estimated += estimated ?? 0;
            out.cost_usd += cost_usd;
          } else if (r.response) {
            results.set(q.custom_id, { custom_id: q.custom_id, ok: false, http_status: r.response.status_code, error: `HTTP ${r.response.status_code}: ${r.response.body?.error?.message ?? ''}`.trim() });
            out.failed += 1;
          } else {
            results.set(q.custom_id, { custom_id: q.custom_id, ok: false, http_status: null, error: `not run (${r.error?.code ?? 'unknown'}): ${r.error?.message ?? ''}`.trim() });
            out.failed += 1;
          }
        }
      }
      const latency = row.ended_at && row.submitted_at ? Date.parse(row.ended_at) - Date.parse(row.submitted_at) : null;
      // The vectors are in the cache; now the ledger rows and the ingested mark, all or nothing.
      const { written } = store.ingest(row, results, { sweep_id: sweepId(), worker: WORKER_ID, latency_ms: latency });
      if (written === 0) return none;
      out.failed = row.requests.length - out.answered;
      deps.log?.(`${config.config_id}: batch ${row.batch_id} (round ${row.round}): ${out.answered} lines answered, ${out.failed} failed`);
      return out;
    },
  };
}
export type EmbedBatchActivities = ReturnType<typeof createEmbedBatchActivities>;
