/**
 * The invoice check of a batch run: every ingested batch's output and error files read again from the provider and
 * compared, request by request, with the ledger rows ingestion wrote from them (answered or not, tokens, and the
 * cost at batch prices). What `audit --check-batches` prints; any difference names the batch and the request.
 * The provider keeps batch files for a limited time (OpenAI: 30 days by default), so this is a check while they
 * last, not the audit's source: the ledger is.
 */
import { callCostUsd } from '../../core/generation/cost.ts';
import { LlmSettings } from '../../core/generation/types.ts';
import { runPaths } from '../generation/runFiles.ts';
import { Ledger } from '../ledger/ledger.ts';
import { providerEnv } from '../llm/providers.ts';
import { openaiBatches } from './openaiBatch.ts';
import { loadBatchPriceTable } from './prices.ts';
import { readBatchRows } from './store.ts';

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
      const files = await openaiBatches.results(settings, providerEnv(settings.provider, env), b);
      const check: BatchCheck = { batch_id: b.batch_id, round: `${b.phase}:${b.round}`, requests: b.request_count, answered: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, differences: [] };
      for (const q of b.requests) {
        const f = files.get(q.custom_id);
        // The ledger row ingestion wrote for this request: the try of (entry, attempt) that started with this batch.
        const rows = calls.filter((c) => c.phase === b.phase && c.entry_id === q.entry_id && c.attempt_no === q.attempt_no && c.started_at === (b.submitted_at ?? b.prepared_at));
        const row = rows[0];
        if (!row) {
          check.differences.push(`${q.custom_id} (${q.entry_id} attempt ${q.attempt_no}): no ledger row`);
          continue;
        }
        if (f?.ok) {
          const cost = callCostUsd(prices, b.provider, b.model, f.reply.usage);
          check.answered += 1;
          check.input_tokens += f.reply.usage.input_tokens;
          check.output_tokens += f.reply.usage.output_tokens;
          check.cost_usd += cost;
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
