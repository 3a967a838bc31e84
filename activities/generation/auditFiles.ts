/**
 * Writes a run's audit: runs/<run>/audit/{entries,by_model,by_outcome,by_phase,calls}.parquet and summary.json.
 * Parquet because people open these in DuckDB, pandas or polars; `calls` is the ledger itself (without the
 * response texts), so any other cut can be made there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { auditRun, type RunAudit } from '../../core/generation/audit.ts';
import { Ledger } from '../ledger/ledger.ts';
import { tableFromRows, writeParquet } from '../storage/parquet.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { runPaths } from './runFiles.ts';
import { loadPriceTable } from './files.ts';

// Always doubles, even when every value happens to be whole (a mechanical run costs exactly 0): a column's
// type must not depend on the data, or files of two runs would not concatenate.
const AUDIT_FLOAT_COLUMNS = ['cost_usd', 'latency_ms', 'lost_cost_usd_max', 'cost_usd_max'];

export interface AuditFiles {
  audit: RunAudit;
  files: string[];
}

export function writeRunAudit(runDir: string): AuditFiles {
  const paths = runPaths(runDir);
  if (!existsSync(paths.ledger)) throw new Error(`${paths.ledger}: no attempt ledger (is ${runDir} a generation run?)`);
  const ledger = new Ledger(paths.ledger);
  let calls;
  try {
    calls = ledger.calls();
  } finally {
    ledger.close();
  }
  // The price table tightens lost calls' bounds (core/generation/audit.ts tightenLostBounds).
  const audit = auditRun(calls, loadPriceTable());
  const files: string[] = [];
  const put = (name: string, rows: object[]) => {
    if (rows.length === 0) return; // an empty table has no columns to infer; the summary still records zero
    const file = join(paths.audit, `${name}.parquet`);
    writeParquet(file, tableFromRows(rows as Record<string, unknown>[], AUDIT_FLOAT_COLUMNS), { source: 'execretrieval audit' });
    files.push(file);
  };
  put('entries', audit.entries);
  put('by_model', audit.by_model);
  put('by_outcome', audit.by_outcome);
  put('by_phase', audit.by_phase);
  put('calls', calls.map((c) => ({ ...c, reasons: JSON.stringify(c.reasons) })));
  const summary = join(paths.audit, 'summary.json');
  const { entries: _e, ...rest } = audit;
  writeJsonAtomic(summary, rest);
  files.push(summary);
  return { audit, files };
}
