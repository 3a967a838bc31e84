/**
 * The invoice check of a batch run: every ingested batch's output and error files read again from the provider and
 * compared, request by request, with the ledger rows ingestion wrote from them (answered or not, tokens, and the
 * cost at batch prices). What `audit --check-batches` prints; any difference names the batch and the request.
 * The provider keeps batch files for a limited time (OpenAI: 30 days by default), so this is a check while they
 * last, not the audit's source: the ledger is. Generation's batches (`checkBatchesAgainstProvider`) and
 * `embed --batch`'s (`checkEmbedBatchesAgainstProvider`) each have their own ledger rows to compare with.
 */
import { callCostUsd } from '../../core/generation/cost.ts';
import { LlmSettings } from '../../core/generation/types.ts';
import { runPaths } from '../generation/runFiles.ts';
import { Ledger } from '../ledger/ledger.ts';
import { providerEnv } from '../llm/providers.ts';
import { batchApiOf } from './providerBatches.ts';
import { batchMetadata } from './batchActivities.ts';
import { loadBatchPriceTable } from './prices.ts';
import { readBatchRows } from './store.ts';
import { readEmbedBatchRows } from './embedStore.ts';
import { EMBEDDING_BATCH_PRICE_FACTOR, embedBatchClient } from './embedBatch.ts';
import { batchIdOf, EmbeddingLedger } from '../ledger/embeddingLedger.ts';
import { existsSync } from 'node:fs';

export interface BatchCheck {
  batch_id: string;
  round: string;
  requests: number;
  answered: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** Requests whose ledger row differs from the provider's files (empty: the ledger is the invoice). */
  differences: string[];
}

export async function checkBatchesAgainstProvider(runDir: string, runId: string, env: Readonly<Record<string, string | undefined>>): Promise<BatchCheck[]> {
  const path = runPaths(runDir).ledger;
  const ledger = new Ledger(path);
  const prices = loadBatchPriceTable();
  try {
    const calls = ledger.calls(runId);
    const out: BatchCheck[] = [];
    for (const b of readBatchRows(path, runId)) {
      if (b.status !== 'ingested' || !b.batch_id) continue;
      const settings = LlmSettings.parse({ provider: b.provider, model: b.model, endpoint: b.endpoint });
      const files = await batchApiOf(settings).results(settings, providerEnv(settings.provider, env), b, batchMetadata(b.run_id, b.phase, b.round, b.requests_sha256));
      const check: BatchCheck = { batch_id: b.batch_id, round: `${b.phase}:${b.round}`, requests: b.request_count, answered: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, differences: [] };
      for (const q of b.requests) {
        const f = files.get(q.custom_id);
        // The ledger row ingestion wrote for this request: the try of (entry, attempt) that started with this batch.
        const rows = calls.filter((c) => c.phase === b.phase && c.entry_id === q.entry_id && c.attempt_no === q.attempt_no && c.started_at === (b.submitted_at ?? b.prepared_at));
        const row = rows[0];
        // The invoice side first: what the provider's files bill, whatever the ledger says.
        const cost = f?.ok ? callCostUsd(prices, b.provider, b.model, f.reply.usage) : 0;
        if (f?.ok) {
          check.answered += 1;
          check.input_tokens += f.reply.usage.input_tokens;
          check.output_tokens += f.reply.usage.output_tokens;
          check.cost_usd += cost;
        }
        if (!row) {
          check.differences.push(`${q.custom_id} (${q.entry_id} attempt ${q.attempt_no}): no ledger row`);
          continue;
        }
        if (f?.ok) {
          if (row.status !== 'ok' || row.input_tokens !== f.reply.usage.input_tokens || row.output_tokens !== f.reply.usage.output_tokens || Math.abs((row.cost_usd ?? 0) - cost) > 1e-12) {
            check.differences.push(`${q.custom_id} (${q.entry_id} attempt ${q.attempt_no}): provider billed ${f.reply.usage.input_tokens}+${f.reply.usage.output_tokens} tokens, ledger ${row.status} ${row.input_tokens}+${row.output_tokens}`);
          }
        } else if (row.status === 'ok') {
          check.differences.push(`${q.custom_id} (${q.entry_id} attempt ${q.attempt_no}): ledger has an answer, the provider's files have none`);
        }
      }
      out.push(check);
    }
    return out;
  } finally {
    ledger.close();
  }
}

/** One line of an OpenAI batch output or error file, as far as the embedding check reads it. */
interface EmbedFileLine {
  custom_id: string;
  response: { status_code: number; body: { data?: unknown[]; usage?: { prompt_tokens?: number } } } | null;
}

/**
 * The same check for `embed --batch`'s batches: each ingested batch's output and error files read again, and each
 * line compared with the `embed_batches` row ingestion wrote for it (the row of that line's texts that started
 * with the batch): answered or not, the texts answered, the tokens the provider reported, and the cost at the
 * configuration's batch price. The provider and price are those of the configuration recorded with the batch.
 */
export async function checkEmbedBatchesAgainstProvider(runDir: string, runId: string, env: Readonly<Record<string, string | undefined>>): Promise<BatchCheck[]> {
  const path = runPaths(runDir).ledger;
  if (!existsSync(path)) return [];
  const batches = readEmbedBatchRows(path, runId).filter((b) => b.status === 'ingested' && b.batch_id);
  if (!batches.length) return [];
  const ledger = new EmbeddingLedger(path);
  try {
    const rows = ledger.batches(runId);
    const out: BatchCheck[] = [];
    for (const b of batches) {
      const check: BatchCheck = { batch_id: b.batch_id!, round: `embed:${b.config_id}:${b.round}`, requests: b.request_count, answered: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, differences: [] };
      out.push(check);
      if (!b.config) {
        check.differences.push(`no configuration recorded with the batch (a ledger from before it was): cannot be checked`);
        continue;
      }
      const client = await embedBatchClient(b.config, { env, modelRoot: '' });
      const files = new Map<string, EmbedFileLine>();
      for (const id of [b.output_file_id, b.error_file_id]) {
        if (!id) continue;
        for (const line of (await (await client.files.content(id)).text()).split('\n')) {
          if (!line.trim()) continue;
          const l = JSON.parse(line) as EmbedFileLine;
          files.set(l.custom_id, l);
        }
      }
      const price = (b.config.price_usd_per_million_tokens ?? 0) * EMBEDDING_BATCH_PRICE_FACTOR;
      const startedAt = b.submitted_at ?? b.prepared_at;
      for (const q of b.requests) {
        const what = `${q.custom_id} (${q.side}, ${q.hashes.length} texts)`;
        const id = batchIdOf(b.config_id, q.fingerprint, q.hashes);
        const f = files.get(q.custom_id);
        const answered = f?.response?.status_code === 200 ? f.response.body : null;
        // The invoice side first: what the provider's files bill, whatever the ledger says.
        const tokens = answered?.usage?.prompt_tokens ?? null;
        const cost = answered ? ((tokens ?? q.input_tokens_est) * price) / 1e6 : 0;
        const vectors = answered?.data?.length ?? 0;
        if (answered) {
          check.answered += 1;
          check.input_tokens += tokens ?? 0;
          check.cost_usd += cost;
        }
        const mine = rows.filter((r) => r.config_id === b.config_id && r.batch_id === id && r.started_at === startedAt);
        if (mine.length !== 1) {
          check.differences.push(`${what}: ${mine.length ? `${mine.length} ledger rows` : 'no ledger row'}`);
          continue;
        }
        const row = mine[0];
        if (answered) {
          if (row.status !== 'ok' || row.tokens_reported !== tokens || row.texts !== vectors || Math.abs((row.cost_usd ?? 0) - cost) > 1e-12) {
            check.differences.push(`${what}: provider answered ${vectors} vectors, ${tokens ?? 'no'} tokens ($${cost.toFixed(9)}); ledger ${row.status} ${row.texts} texts, ${row.tokens_reported ?? 'no'} tokens ($${(row.cost_usd ?? 0).toFixed(9)})`);
          }
        } else if (row.status === 'ok') {
          check.differences.push(`${what}: ledger has an answer ($${(row.cost_usd ?? 0).toFixed(9)}), the provider's files have none`);
        }
      }
    }
    return out;
  } finally {
    ledger.close();
  }
}
