/**
 * The run's provider batches, in the run's ledger file (`runs/<run>/ledger.sqlite`, table `batches`): one row per
 * (run, phase, round), written BEFORE the batch is created (`preparing`, with the requests it will hold and their
 * content hash) and again AFTER (`submitted`, with the provider's batch id), then `ended` and `ingested`.
 *
 * Why both: a process killed between the provider creating the batch and our recording its id leaves a
 * `preparing` row; the next try looks the batch up in the provider's list by the metadata it was created with
 * (run id, round, content hash) and adopts it instead of creating a second one. A `preparing` row whose batch is
 * not in the list was never created (the kill came before), so creating it then pays nothing twice.
 *
 * Ingestion writes every request's ledger row (`calls`) and marks the batch `ingested` in ONE transaction of the
 * same database, so a kill while ingesting leaves either all of a batch's results in the ledger or none.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LedgerPhase } from '../../core/generation/ledgerTypes.ts';
import { Ledger } from '../ledger/ledger.ts';
import { handlesPerPath } from '../storage/handles.ts';
import { batchTransitions, type BatchEnd } from './transitions.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS batches (
  run_id TEXT NOT NULL, phase TEXT NOT NULL, round INTEGER NOT NULL,
  status TEXT NOT NULL, provider TEXT NOT NULL, endpoint TEXT NOT NULL, model TEXT NOT NULL,
  requests_sha256 TEXT NOT NULL, requests TEXT NOT NULL, request_count INTEGER NOT NULL, cost_usd_max REAL NOT NULL,
  batch_id TEXT, input_file_id TEXT, output_file_id TEXT, error_file_id TEXT, provider_status TEXT,
  prepared_at TEXT NOT NULL, submitted_at TEXT, ended_at TEXT, ingested_at TEXT,
  PRIMARY KEY (run_id, phase, round)
);
`;

/** preparing: recorded, not known to exist at the provider; submitted: created (id known); ended: results ready; ingested: in the ledger. */
export type BatchStatus = 'preparing' | 'submitted' | 'ended' | 'ingested';

/** One request of a batch: whose attempt it is, and its bounds (what the budget reserves while it is in flight). */
export interface BatchRequest {
  custom_id: string;
  entry_id: string;
  attempt_no: number;
  prompt_id: string;
  prompt_sha256: string;
  input_tokens_est: number;
  tokens_max: number;
  cost_usd_max: number;
}

export interface BatchRow {
  run_id: string;
  phase: LedgerPhase;
  round: number;
  status: BatchStatus;
  provider: string;
  endpoint: string;
  model: string;
  requests_sha256: string;
  requests: BatchRequest[];
  request_count: number;
  cost_usd_max: number;
  batch_id: string | null;
  input_file_id: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  provider_status: string | null;
  prepared_at: string;
  submitted_at: string | null;
  ended_at: string | null;
  ingested_at: string | null;
}

/** One request's result as the ledger records it: an answer (billed at batch prices) or a failure (not billed). */
export type IngestedResult =
  | { custom_id: string; ok: true; text: string; model: string; input_tokens: number; output_tokens: number; reasoning_tokens: number; cost_usd: number }
  | { ok: false; custom_id: string; http_status: number | null; error: string };

export class BatchStore {
  private readonly db: Database.Database;
  private readonly transitions: ReturnType<typeof batchTransitions>;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    // The ledger's own constructor creates (and migrates) the calls table this store writes rows into.
    new Ledger(path).close();
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(SCHEMA);
    this.transitions = batchTransitions(this.db, 'batches', 'phase');
  }

  close(): void {
    this.db.close();
  }

  get(run_id: string, phase: LedgerPhase, round: number): BatchRow | null {
    const r = this.db.prepare(`SELECT * FROM batches WHERE run_id=? AND phase=? AND round=?`).get(run_id, phase, round) as (Omit<BatchRow, 'requests'> & { requests: string }) | undefined;
    return r ? { ...r, requests: JSON.parse(r.requests) as BatchRequest[] } : null;
  }

  list(run_id?: string): BatchRow[] {
    const rows = (run_id ? this.db.prepare(`SELECT * FROM batches WHERE run_id=? ORDER BY phase, round`).all(run_id) : this.db.prepare(`SELECT * FROM batches ORDER BY run_id, phase, round`).all()) as (Omit<BatchRow, 'requests'> & { requests: string })[];
    return rows.map((r) => ({ ...r, requests: JSON.parse(r.requests) as BatchRequest[] }));
  }

  /** Worst case (cost, tokens) of every request in batches not yet ingested: what the budget reserves; the audit shows it. */
  inFlightMax(run_id: string): { cost_usd: number; tokens: number } {
    let tokens = 0;
    let cost_usd = 0;
    for (const b of this.list(run_id)) {
      if (b.status === 'ingested') continue;
      cost_usd += b.cost_usd_max;
      tokens += b.requests.reduce((a, r) => a + r.tokens_max, 0);
    }
    return { cost_usd, tokens };
  }

  /** One entry's ledger rows in order (through the ledger's (run, phase, entry) index: no scan of the whole run). */
  entryCalls(run_id: string, phase: LedgerPhase, entry_id: string): { attempt_no: number; status: string; outcome: string | null; reasons: string[]; model: string; input_tokens: number | null; output_tokens: number | null; reasoning_tokens: number | null; cost_usd: number | null; latency_ms: number | null; error: string | null }[] {
    const rows = this.db
      .prepare(`SELECT attempt_no, status, outcome, reasons, model, input_tokens, output_tokens, reasoning_tokens, cost_usd, latency_ms, error FROM calls WHERE run_id=? AND phase=? AND entry_id=? ORDER BY id`)
      .all(run_id, phase, entry_id) as { reasons: string }[];
    return rows.map((r) => ({ ...r, reasons: JSON.parse(r.reasons) as string[] })) as ReturnType<BatchStore['entryCalls']>;
  }

  /** Records a round's batch before it is created. Returns false when the round already has a row (keep that one). */
  prepare(row: Pick<BatchRow, 'run_id' | 'phase' | 'round' | 'provider' | 'endpoint' | 'model' | 'requests_sha256' | 'requests' | 'cost_usd_max'>): boolean {
    const info = this.db
      .prepare(
        `INSERT OR IGNORE INTO batches (run_id, phase, round, status, provider, endpoint, model, requests_sha256, requests, request_count, cost_usd_max, prepared_at)
         VALUES (?, ?, ?, 'preparing', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.run_id, row.phase, row.round, row.provider, row.endpoint, row.model, row.requests_sha256, JSON.stringify(row.requests), row.requests.length, row.cost_usd_max, new Date().toISOString());
    return info.changes === 1;
  }

  submitted(run_id: string, phase: LedgerPhase, round: number, batch_id: string, input_file_id: string | null, provider_status: string): void {
    this.transitions.submitted(run_id, phase, round, batch_id, input_file_id, provider_status);
  }

  polled(run_id: string, phase: LedgerPhase, round: number, provider_status: string, ended: BatchEnd | null): void {
    this.transitions.polled(run_id, phase, round, provider_status, ended);
  }

  /**
   * Every request's ledger row and the batch's `ingested` mark, in one transaction (all or nothing). Each row is
   * the next try of its (entry, attempt); `latency_ms` is the batch's completion time. Idempotent: a batch
   * already ingested writes nothing.
   */
  ingest(row: BatchRow, results: Map<string, IngestedResult>, meta: { reasoning_effort: string | null; latency_ms: number | null }): { written: number } {
    return this.db.transaction(() => {
      const cur = this.db.prepare(`SELECT status FROM batches WHERE run_id=? AND phase=? AND round=?`).get(row.run_id, row.phase, row.round) as { status: string } | undefined;
      if (cur?.status === 'ingested') return { written: 0 };
      const nextTry = this.db.prepare(`SELECT COALESCE(MAX(try_no), 0) + 1 AS n FROM calls WHERE run_id=? AND phase=? AND entry_id=? AND attempt_no=?`);
      const insert = this.db.prepare(
        `INSERT INTO calls (run_id, phase, entry_id, attempt_no, try_no, status, http_status, error, provider, model, endpoint, reasoning_effort, prompt_id, prompt_sha256,
                            started_at, latency_ms, input_tokens, output_tokens, reasoning_tokens, cost_usd, input_tokens_est, tokens_max, cost_usd_max, response_text, outcome)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const q of row.requests) {
        const r = results.get(q.custom_id) ?? { ok: false as const, custom_id: q.custom_id, http_status: null, error: `batch ${row.batch_id}: no result for ${q.custom_id}` };
        const n = (nextTry.get(row.run_id, row.phase, q.entry_id, q.attempt_no) as { n: number }).n;
        const startedAt = row.submitted_at ?? row.prepared_at;
        if (r.ok) {
          insert.run(row.run_id, row.phase, q.entry_id, q.attempt_no, n, 'ok', null, null, row.provider, r.model, row.endpoint, meta.reasoning_effort, q.prompt_id, q.prompt_sha256,
            startedAt, meta.latency_ms, r.input_tokens, r.output_tokens, r.reasoning_tokens, r.cost_usd, q.input_tokens_est, q.tokens_max, q.cost_usd_max, r.text, null);
        } else {
          insert.run(row.run_id, row.phase, q.entry_id, q.attempt_no, n, 'error', r.http_status, r.error.slice(0, 2000), row.provider, row.model, row.endpoint, meta.reasoning_effort, q.prompt_id, q.prompt_sha256,
            startedAt, meta.latency_ms, null, null, null, null, q.input_tokens_est, q.tokens_max, q.cost_usd_max, null, 'provider_error');
        }
      }
      this.db.prepare(`UPDATE batches SET status='ingested', ingested_at=? WHERE run_id=? AND phase=? AND round=?`).run(new Date().toISOString(), row.run_id, row.phase, row.round);
      return { written: row.requests.length };
    }).immediate();
  }
}

/**
 * A run's batch rows without writing anything (for `runs` and `audit`): opened read-only, and a ledger without the
 * table (a real-time run) has none.
 */
export function readBatchRows(path: string, run_id?: string): BatchRow[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='batches'`).get();
    if (!has) return [];
    const rows = (run_id ? db.prepare(`SELECT * FROM batches WHERE run_id=? ORDER BY phase, round`).all(run_id) : db.prepare(`SELECT * FROM batches ORDER BY run_id, phase, round`).all()) as (Omit<BatchRow, 'requests'> & { requests: string })[];
    return rows.map((r) => ({ ...r, requests: JSON.parse(r.requests) as BatchRequest[] }));
  } finally {
    db.close();
  }
}

/** One handle per file per process, like the ledger's. */
const handles = handlesPerPath((path) => new BatchStore(path));
export const batchStoreAt = handles.at;
export const closeBatchStores = handles.closeAll;
