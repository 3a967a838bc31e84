import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { auditEmbeddingBatches, type EmbeddingTotals } from '../../core/generation/audit.ts';
import { EmbeddingLedger } from '../ledger/embeddingLedger.ts';
import { runPaths } from '../generation/runFiles.ts';
import { tableFromRows, writeParquet } from '../storage/parquet.ts';

export interface EmbeddingAccountRow {
  config_id: string;
  /** The last sweep's outcome for the configuration (`no report` when no sweep of it finished). */
  status: string;
  /** The last sweep's counts: texts, embedded now, found in the cache. */
  texts: number;
  embedded: number;
  cached: number;
  /** From the ledger, every sweep of the run: requests sent, what the answered ones billed. */
  requests: number;
  tokens_reported: number;
  tokens_estimated: number;
  cost_usd: number;
  /** Requests sent whose answer was never recorded: their estimated input tokens and an upper bound on their cost. */
  lost_requests: number;
  lost_input_tokens_est: number;
  lost_cost_usd_max: number;
  /** Texts in the matrices no request of this run paid for (found in the shared cache: another run paid). */
  texts_paid_elsewhere: number;
  reason: string;
}

export interface EmbeddingAudit {
  rows: EmbeddingAccountRow[];
  totals: EmbeddingTotals;
  file: string;
}

interface SweepReport {
  configs: { config_id: string; status: string; reason?: string | null; stats?: Record<string, number> | null; texts_paid_elsewhere?: number | null }[];
}

/**
 * The embedding side of a run's audit, per configuration, written to `audit/embeddings.parquet`. Tokens and cost
 * come from the ledger's batch rows (every request of every sweep of the run, a killed sweep's included), never
 * from a sweep's own counts, so what a killed sweep paid for is not shown as free in its rerun; the sweep report
 * (`embeddings/report.json`) adds each configuration's status and last counts. Null when the run has neither.
 */
export function writeEmbeddingAudit(runDir: string): EmbeddingAudit | null {
  const reportPath = join(runDir, 'embeddings', 'report.json');
  const report = existsSync(reportPath) ? (JSON.parse(readFileSync(reportPath, 'utf8')) as SweepReport) : null;
  const ledgerPath = runPaths(runDir).ledger;
  let batches: ReturnType<EmbeddingLedger['batches']> = [];
  if (existsSync(ledgerPath)) {
    const ledger = new EmbeddingLedger(ledgerPath);
    try {
      batches = ledger.batches(basename(runDir));
    } finally {
      ledger.close();
    }
  }
  if (!report && batches.length === 0) return null;
  const audit = auditEmbeddingBatches(batches);
  const ids = [...new Set([...(report?.configs.map((c) => c.config_id) ?? []), ...audit.configs.map((c) => c.config_id)])];
  const rows: EmbeddingAccountRow[] = ids.map((config_id) => {
    const c = report?.configs.find((x) => x.config_id === config_id);
    const t = audit.configs.find((x) => x.config_id === config_id);
    return {
      config_id,
      status: c?.status ?? 'no report',
      texts: c?.stats?.texts ?? 0,
      embedded: c?.stats?.embedded ?? 0,
      cached: c?.stats?.cached ?? 0,
      requests: t?.requests ?? 0,
      tokens_reported: t?.tokens_reported ?? 0,
      tokens_estimated: t?.tokens_estimated ?? 0,
      cost_usd: t?.cost_usd ?? 0,
      lost_requests: t?.lost_batches ?? 0,
      lost_input_tokens_est: t?.lost_input_tokens_est ?? 0,
      lost_cost_usd_max: t?.lost_cost_usd_max ?? 0,
      texts_paid_elsewhere: c?.texts_paid_elsewhere ?? 0,
      reason: c?.reason ?? (c ? '' : 'no sweep of it finished: the ledger holds its requests'),
    };
  });
  const file = join(runDir, 'audit', 'embeddings.parquet');
  if (rows.length) writeParquet(file, tableFromRows(rows as unknown as Record<string, unknown>[], ['cost_usd', 'lost_cost_usd_max']), { source: 'execretrieval audit' });
  return { rows, totals: audit.totals, file };
}
