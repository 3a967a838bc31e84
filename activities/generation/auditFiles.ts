/**
 * Writes a run's audit: runs/<run>/audit/{entries,by_model,by_outcome,by_phase,calls}.parquet and summary.json.
 * Parquet because people open these in DuckDB, pandas or polars; `calls` is the ledger itself (without the
 * response texts), so any other cut can be made there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Bool, Float64, Int64, Table, Utf8, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import { auditRun, type RunAudit } from '../../core/generation/audit.ts';
import { Ledger } from '../ledger/ledger.ts';
import { writeParquet } from '../storage/parquet.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { runPaths } from './runFiles.ts';

/**
 * Rows to an Arrow table with explicit column types, in the rows' own key order: integers (token counts,
 * attempt numbers) as Int64, other numbers Float64, booleans Bool, the rest Utf8. (`tableFromJSON` would turn
 * every count into a double and reorder the columns.)
 */
// Always doubles, even when every value happens to be whole (a mechanical run costs exactly 0): a column's
// type must not depend on the data, or files of two runs would not concatenate.
const FLOAT_COLUMNS = new Set(['cost_usd', 'latency_ms']);

export function tableFromRows(rows: readonly Record<string, unknown>[]): Table {
  const names = Object.keys(rows[0]);
  const cols: Record<string, Vector> = {};
  for (const name of names) {
    const vals = rows.map((r) => (r[name] === undefined ? null : r[name]));
    const present = vals.filter((v) => v !== null);
    let type: DataType;
    let data: unknown[] = vals;
    if (FLOAT_COLUMNS.has(name)) type = new Float64();
    else if (present.length && present.every((v) => typeof v === 'number' && Number.isInteger(v))) {
      type = new Int64();
      data = vals.map((v) => (v === null ? null : BigInt(v as number)));
    } else if (present.length && present.every((v) => typeof v === 'number')) type = new Float64();
    else if (present.length && present.every((v) => typeof v === 'boolean')) type = new Bool();
    else {
      type = new Utf8();
      data = vals.map((v) => (v === null ? null : typeof v === 'string' ? v : JSON.stringify(v)));
    }
    cols[name] = vectorFromArray(data, type);
  }
  return new Table(cols);
}

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
  const audit = auditRun(calls);
  const files: string[] = [];
  const put = (name: string, rows: object[]) => {
    if (rows.length === 0) return; // an empty table has no columns to infer; the summary still records zero
    const file = join(paths.audit, `${name}.parquet`);
    writeParquet(file, tableFromRows(rows as Record<string, unknown>[]), { source: 'execretrieval audit' });
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
