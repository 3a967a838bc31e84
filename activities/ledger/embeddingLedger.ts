/**
 * The embedding side of the run's ledger (`runs/<run>/ledger.sqlite`, tables `embed_batches` and
 * `embed_batch_texts`): one row per embedding request that leaves the machine, written before it is sent and
 * completed when it returns, with the hashes of the texts it carried. It is what lets the audit total what a run
 * paid across every sweep of it (a killed one included), bound what a request lost with a killed worker may have
 * cost, and say which request paid for a text a later sweep finds in the shared embedding cache.
 *
 * Its own connection to the same file as the generation ledger (WAL; a busy timeout rides out the overlapping
 * transactions of several workers).
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallStatus, EmbeddingBatchRow } from '../../core/generation/ledgerTypes.ts';
import { handlesPerPath } from '../storage/handles.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS embed_batches (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL, sweep_id TEXT NOT NULL, config_id TEXT NOT NULL, fingerprint TEXT NOT NULL, side TEXT NOT NULL,
  batch_id TEXT NOT NULL, try_no INTEGER NOT NULL, status TEXT NOT NULL,
  provider TEXT NOT NULL, model TEXT NOT NULL,
  texts INTEGER NOT NULL, chars INTEGER NOT NULL, input_tokens_est INTEGER NOT NULL, tokens_max INTEGER NOT NULL, cost_usd_max REAL NOT NULL,
  tokens_reported INTEGER, tokens_estimated INTEGER, cost_usd REAL,
  http_status INTEGER, error TEXT, started_at TEXT NOT NULL, latency_ms REAL, worker TEXT NOT NULL,
  UNIQUE (run_id, batch_id, try_no)
);
CREATE TABLE IF NOT EXISTS embed_batch_texts (
  batch_row INTEGER NOT NULL REFERENCES embed_batches(id), config_id TEXT NOT NULL, fingerprint TEXT NOT NULL, text_sha256 TEXT NOT NULL,
  PRIMARY KEY (batch_row, text_sha256)
);
CREATE INDEX IF NOT EXISTS embed_batch_texts_key ON embed_batch_texts (config_id, fingerprint, text_sha256);
`;

export interface StartBatch {
  run_id: string;
  sweep_id: string;
  config_id: string;
  fingerprint: string;
  side: string;
  provider: string;
  model: string;
  /** sha256 of each text sent (the embedding cache's text key), in the order sent. */
  hashes: readonly string[];
  chars: number;
  input_tokens_est: number;
  tokens_max: number;
  cost_usd_max: number;
  started_at: string;
  worker: string;
}

/** Same texts under the same invocation = same batch id, whichever sweep or try sends them. */
export function batchIdOf(config_id: string, fingerprint: string, hashes: readonly string[]): string {
  const h = createHash('sha256').update(config_id).update('\u0000').update(fingerprint);
  for (const x of [...hashes].sort()) h.update('\u0000').update(x);
  return h.digest('hex');
}

export class EmbeddingLedger {
  private readonly db: Database.Database;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(SCHEMA);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Records a request about to be sent; returns its row id. Rows of the same run and invocation still `started`
   * that carried any of these texts belong to a request whose answer never arrived (its worker died, or the
   * activity was retried): they become `lost`, keeping their bounds. One immediate transaction, so two workers
   * cannot both take the same try number.
   */
  startBatch(b: StartBatch): number {
    const batch_id = batchIdOf(b.config_id, b.fingerprint, b.hashes);
    return this.db.transaction(() => {
      const overlap = this.db.prepare(
        `UPDATE embed_batches SET status='lost', error=COALESCE(error, 'no answer recorded: a later request carried its texts')
         WHERE status='started' AND run_id=? AND id IN (SELECT batch_row FROM embed_batch_texts WHERE config_id=? AND fingerprint=? AND text_sha256=?)`,
      );
      for (const h of b.hashes) overlap.run(b.run_id, b.config_id, b.fingerprint, h);
      const next = this.db.prepare(`SELECT COALESCE(MAX(try_no), 0) + 1 AS n FROM embed_batches WHERE run_id=? AND batch_id=?`).get(b.run_id, batch_id) as { n: number };
      const info = this.db
        .prepare(
          `INSERT INTO embed_batches (run_id, sweep_id, config_id, fingerprint, side, batch_id, try_no, status, provider, model, texts, chars,
                                      input_tokens_est, tokens_max, cost_usd_max, started_at, worker)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'started', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(b.run_id, b.sweep_id, b.config_id, b.fingerprint, b.side, batch_id, next.n, b.provider, b.model, b.hashes.length, b.chars,
          b.input_tokens_est, b.tokens_max, b.cost_usd_max, b.started_at, b.worker);
      const row = Number(info.lastInsertRowid);
      const text = this.db.prepare(`INSERT OR IGNORE INTO embed_batch_texts (batch_row, config_id, fingerprint, text_sha256) VALUES (?, ?, ?, ?)`);
      for (const h of b.hashes) text.run(row, b.config_id, b.fingerprint, h);
      return row;
    }).immediate();
  }

  /**
   * The answer came back: what the provider reported (or our estimate where it reports nothing) and its cost.
   * `worker`: who sent it, when that is not who reserved the row (an embed worker on another machine).
   */
  finishBatch(id: number, r: { tokens_reported: number | null; tokens_estimated: number | null; cost_usd: number; latency_ms: number; worker?: string }): void {
    this.db
      .prepare(`UPDATE embed_batches SET status='ok', tokens_reported=?, tokens_estimated=?, cost_usd=?, latency_ms=?, error=NULL, worker=COALESCE(?, worker) WHERE id=?`)
      .run(r.tokens_reported, r.tokens_estimated, r.cost_usd, r.latency_ms, r.worker ?? null, id);
  }

  /**
   * Reserved rows whose request was never sent (the sender stopped before it, at a failure of an earlier request):
   * they paid for nothing, so they are removed, not counted as lost. Only rows still `started`.
   */
  dropUnsent(ids: readonly number[]): void {
    const texts = this.db.prepare(`DELETE FROM embed_batch_texts WHERE batch_row=? AND EXISTS (SELECT 1 FROM embed_batches WHERE id=? AND status='started')`);
    const row = this.db.prepare(`DELETE FROM embed_batches WHERE id=? AND status='started'`);
    this.db.transaction(() => ids.forEach((id) => { texts.run(id, id); row.run(id); }))();
  }

  /**
   * Reserved rows whose sender is gone or whose answer was lost with its activity (a worker on another machine
   * died; a cancelled send): any of them may have been billed, so they are `lost` at their bound. Rows already
   * answered keep their answer.
   */
  loseStarted(ids: readonly number[], reason: string): number {
    const mark = this.db.prepare(`UPDATE embed_batches SET status='lost', error=COALESCE(error, ?) WHERE id=? AND status='started'`);
    return this.db.transaction(() => ids.reduce((n, id) => n + mark.run(reason.slice(0, 2000), id).changes, 0))();
  }

  /**
   * The request failed. With an HTTP status the provider refused it (`error`: not billed); without one (connection
   * lost, timeout, a malformed answer) it may have been billed, so it is `lost` and counts at its bound.
   */
  failBatch(id: number, e: { http_status: number | null; error: string; latency_ms: number }): CallStatus {
    const status: CallStatus = e.http_status != null && e.http_status >= 400 ? 'error' : 'lost';
    this.db.prepare(`UPDATE embed_batches SET status=?, http_status=?, error=?, latency_ms=? WHERE id=?`).run(status, e.http_status, e.error.slice(0, 2000), e.latency_ms, id);
    return status;
  }

  /**
   * Rows of this run left `started` by workers that are gone (`alive(worker)` false): they become `lost`. The
   * sweep calls it when it starts, so a killed sweep's requests are reconciled even when no later request
   * carries their texts. Returns how many.
   */
  reconcileStarted(run_id: string, alive: (worker: string) => boolean): number {
    const rows = this.db.prepare(`SELECT id, worker FROM embed_batches WHERE run_id=? AND status='started'`).all(run_id) as { id: number; worker: string }[];
    const dead = rows.filter((r) => !alive(r.worker));
    const mark = this.db.prepare(`UPDATE embed_batches SET status='lost', error=COALESCE(error, 'no answer recorded: its worker died') WHERE id=? AND status='started'`);
    this.db.transaction(() => dead.forEach((r) => mark.run(r.id)))();
    return dead.length;
  }

  /** Of these text hashes, the ones an answered request of this run paid for (the rest came from elsewhere). */
  paidHashes(run_id: string, config_id: string, fingerprint: string): Set<string> {
    const rows = this.db
      .prepare(
        `SELECT DISTINCT t.text_sha256 AS h FROM embed_batch_texts t JOIN embed_batches b ON b.id = t.batch_row
         WHERE b.run_id=? AND b.status='ok' AND t.config_id=? AND t.fingerprint=?`,
      )
      .all(run_id, config_id, fingerprint) as { h: string }[];
    return new Set(rows.map((r) => r.h));
  }

  batches(run_id?: string): EmbeddingBatchRow[] {
    const sql = `SELECT run_id, sweep_id, config_id, fingerprint, side, batch_id, try_no, status, provider, model, texts, chars, input_tokens_est, tokens_max,
                 cost_usd_max, tokens_reported, tokens_estimated, cost_usd, http_status, error, started_at, latency_ms, worker FROM embed_batches`;
    return (run_id ? this.db.prepare(`${sql} WHERE run_id=? ORDER BY id`).all(run_id) : this.db.prepare(`${sql} ORDER BY id`).all()) as EmbeddingBatchRow[];
  }
}

/** One open handle per ledger file per process (every embedding activity of a worker shares it). */
const handles = handlesPerPath((path) => new EmbeddingLedger(path));
export const embeddingLedgerAt = handles.at;
export const closeEmbeddingLedgers = handles.closeAll;
