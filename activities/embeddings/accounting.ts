import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromRows, writeParquet } from '../storage/parquet.ts';

export interface EmbeddingAccountRow {
  config_id: string;
  status: string;
  texts: number;
  embedded: number;
  cached: number;
  tokens_reported: number;
  tokens_estimated: number;
  cost_usd: number;
  reason: string;
}

interface SweepReport {
  total_cost_usd?: number;
  configs: { config_id: string; status: string; reason?: string | null; stats?: Record<string, number> | null }[];
}

/**
 * The embedding side of a run's audit: tokens and cost per configuration, from the sweep's
 * `embeddings/report.json`, written to `audit/embeddings.parquet`. Null when the run was never embedded.
 */
export function writeEmbeddingAudit(runDir: string): { rows: EmbeddingAccountRow[]; total_cost_usd: number; file: string } | null {
  const reportPath = join(runDir, 'embeddings', 'report.json');
  if (!existsSync(reportPath)) return null;
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as SweepReport;
  const rows: EmbeddingAccountRow[] = report.configs.map((c) => ({
    config_id: c.config_id,
    status: c.status,
    texts: c.stats?.texts ?? 0,
    embedded: c.stats?.embedded ?? 0,
    cached: c.stats?.cached ?? 0,
    tokens_reported: c.stats?.tokens_reported ?? 0,
    tokens_estimated: c.stats?.tokens_estimated ?? 0,
    cost_usd: c.stats?.cost_usd ?? 0,
    reason: c.reason ?? '',
  }));
  const file = join(runDir, 'audit', 'embeddings.parquet');
  if (rows.length) writeParquet(file, tableFromRows(rows as unknown as Record<string, unknown>[], ['cost_usd']), { source: 'execretrieval audit' });
  const total = rows.reduce((s, r) => s + r.cost_usd, 0);
  return { rows, total_cost_usd: total, file };
}
