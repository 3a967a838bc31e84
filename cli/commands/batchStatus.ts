/**
 * The provider batches of a run, for `generate --batch`, `audit` and `runs`: one line per round (batch id, status,
 * requests, worst-case cost while in flight), read from the run's ledger (table `batches`). Batches not yet
 * ingested are in flight: their requests may still be billed, up to the bound shown.
 */
import { existsSync } from 'node:fs';
import { runPaths } from '../../activities/generation/runFiles.ts';
import { readBatchRows, type BatchRow } from '../../activities/batch/store.ts';
import { readEmbedBatchRows } from '../../activities/batch/embedStore.ts';

/** A batch as shown: generation's rows (phase `entry`, `registry`) and `embed --batch`'s (phase `embed:<config>`). */
export type ShownBatch = Omit<BatchRow, 'phase' | 'requests'> & { phase: string; requests: unknown[] };

/** Read-only: listing runs or auditing one never writes to its ledger. */
export function readBatches(runDir: string, runId?: string): ShownBatch[] {
  const path = runPaths(runDir).ledger;
  if (!existsSync(path)) return [];
  const embeds: ShownBatch[] = readEmbedBatchRows(path, runId).map(({ config_id, ...r }) => ({ ...r, phase: `embed:${config_id}`, endpoint: '/v1/embeddings' }));
  return [...readBatchRows(path, runId), ...embeds];
}

export function inFlight<T extends { status: string }>(rows: readonly T[]): T[] {
  return rows.filter((r) => r.status !== 'ingested');
}

export function formatBatches(runDir: string, runId?: string): string {
  const rows = readBatches(runDir, runId);
  if (!rows.length) return 'provider batches: none';
  const lines = rows.map((r) =>
    `  ${r.phase} round ${r.round}: ${r.batch_id ?? '(not created yet)'}  ${r.status}${r.provider_status ? ` (${r.provider_status})` : ''}  ${r.request_count} requests` +
    (r.status === 'ingested' ? '' : `  in flight: at most $${r.cost_usd_max.toFixed(6)}`),
  );
  const open = inFlight(rows);
  const head = `provider batches: ${rows.length}` + (open.length ? `, ${open.length} in flight (${open.reduce((s, r) => s + r.request_count, 0)} requests, at most $${open.reduce((s, r) => s + r.cost_usd_max, 0).toFixed(6)} more)` : ', none in flight');
  return [head, ...lines].join('\n');
}
