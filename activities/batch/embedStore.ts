/**
 * `embed --batch`'s provider batches, in the run's ledger file (`runs/<run>/ledger.sqlite`, table
 * `embed_provider_batches`): one row per (run, configuration, round), written BEFORE the batch is created
 * (`preparing`, with the requests it will hold: side, invocation fingerprint, the hashes of its texts) and AFTER
 * (`submitted`, with the batch id), then `ended` and `ingested` — the same protocol as generation's batches
 * (activities/batch/store.ts, whose header says why both records are needed).
 *
 * Ingestion writes every request's embedding-ledger rows (`embed_batches`, `embed_batch_texts`: what the audit
 * totals) and marks the batch `ingested` in ONE transaction of this connection, so a kill while ingesting leaves
 * all of a batch's rows in the ledger or none. The vectors go to the shared embedding cache (another file) first;
 * writing them again on a retry is harmless.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { batchIdOf, EmbeddingLedger } from '../ledger/embeddingLedger.ts';
import { handlesPerPath } from '../storage/handles.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { batchTransitions, type BatchEnd } from './transitions.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS embed_provider_batches (
  run_id TEXT NOT NULL, config_id TEXT NOT NULL, round INTEGER NOT NULL,
  status TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
  requests_sha256 TEXT NOT NULL, requests TEXT NOT NULL, request_count INTEGER NOT NULL, cost_usd_max REAL NOT NULL,
  batch_id TEXT, input_file_id TEXT, output_file_id TEXT, error_file_id TEXT, provider_status TEXT,
  prepared_at TEXT NOT NULL, submitted_at TEXT, ended_at TEXT, ingested_at TEXT, config TEXT,
  PRIMARY KEY (run_id, config_id, round)
);
`;

/**
 * `config` (the configuration the batch was planned under, as JSON: its price, model, key and server variables;
 * never a key) came after the table: `audit --check-batches` needs it to reach the provider and price its files.
 */
function addConfigColumn(db: Database.Database): void {
  const cols = db.prepare(`PRAGMA table_info(embed_provider_batches)`).all() as { name: string }[];
  if (cols.some((c) => c.name === 'config')) return;
  try {
    db.exec(`ALTER TABLE embed_provider_batches ADD COLUMN config TEXT`);
  } catch (e) {
    // Another process added it between the look and the ALTER.
    if (!/duplicate column name/.test((e as Error).message)) throw e;
  }
}

export type EmbedBatchStatus = 'preparing' | 'submitted' | 'ended' | 'ingested';

/** One line of an embedding batch: `batch_size` texts of one side, as the real-time path would send them together. */
export interface EmbedBatchRequest {
  custom_id: string;
  side: 'query' | 'document';
  fingerprint: string;
  /** The embedding cache's key of each text, in the order sent. */
  hashes: string[];
  chars: number;
  input_tokens_est: number;
  tokens_max: number;
  cost_usd_max: number;
}

export interface EmbedBatchRow {
  run_id: string;
  config_id: string;
  round: number;
  status: EmbedBatchStatus;
  provider: string;
  model: string;
  requests_sha256: string;
  requests: EmbedBatchRequest[];
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
  /** The configuration the batch was planned under; null in a ledger written before it was recorded. */
  config: EmbeddingConfig | null;
}

/** One line's result as the ledger records it: answered (billed at batch prices) or failed inside the batch (not billed). */
export type EmbedLineResult = { custom_id: string; ok: true; tokens: number | null; tokens_estimated: number | null; cost_usd: number } | { custom_id: string; ok: false; http_status: number | null; error: string };

type Raw = Omit<EmbedBatchRow, 'requests' | 'config'> & { requests: string; config?: string | null };
const parse = (r: Raw): EmbedBatchRow => ({ ...r, requests: JSON.parse(r.requests) as EmbedBatchRequest[], config: r.config ? (JSON.parse(r.config) as EmbeddingConfig) : null });

export class EmbedBatchStore {
  private readonly db: Database.Database;
  private readonly transitions: ReturnType<typeof batchTransitions>;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    // The embedding ledger's constructor creates the tables ingestion writes rows into.
    new EmbeddingLedger(path).close();
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(SCHEMA);
    this.transitions = batchTransitions(this.db, 'embed_provider_batches', 'config_id');
    addConfigColumn(this.db);
  }

  close(): void {
    this.db.close();
  }

  get(run_id: string, config_id: string, round: number): EmbedBatchRow | null {
    const r = this.db.prepare(`SELECT * FROM embed_provider_batches WHERE run_id=? AND config_id=? AND round=?`).get(run_id, config_id, round) as Raw | undefined;
    return r ? parse(r) : null;
  }

  list(run_id: string, config_id?: string): EmbedBatchRow[] {
    const rows = (config_id
      ? this.db.prepare(`SELECT * FROM embed_provider_batches WHERE run_id=? AND config_id=? ORDER BY round`).all(run_id, config_id)
      : this.db.prepare(`SELECT * FROM embed_provider_batches WHERE run_id=? ORDER BY config_id, round`).all(run_id)) as Raw[];
    return rows.map(parse);
  }

  /** Records a round's batch before it is created. False when the round already has a row (keep that one). */
  prepare(row: Pick<EmbedBatchRow, 'run_id' | 'config_id' | 'round' | 'provider' | 'model' | 'requests_sha256' | 'requests'> & { config: EmbeddingConfig }): boolean {
    const info = this.db
      .prepare(
        `INSERT OR IGNORE INTO embed_provider_batches (run_id, config_id, round, status, provider, model, requests_sha256, requests, request_count, cost_usd_max, prepared_at, config)
         VALUES (?, ?, ?, 'preparing', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.run_id, row.config_id, row.round, row.provider, row.model, row.requests_sha256, JSON.stringify(row.requests), row.requests.length, row.requests.reduce((a, q) => a + q.cost_usd_max, 0), new Date().toISOString(), JSON.stringify(row.config));
    return info.changes === 1;
  }

  submitted(run_id: string, config_id: string, round: number, batch_id: string, input_file_id: string | null, provider_status: string): void {
    this.transitions.submitted(run_id, config_id, round, batch_id, input_file_id, provider_status);
  }

  polled(run_id: string, config_id: string, round: number, provider_status: string, ended: BatchEnd | null): void {
    this.transitions.polled(run_id, config_id, round, provider_status, ended);
  }

  /**
   * Every line's `embed_batches` row (answered: `ok` with the provider's tokens and the batch-price cost, and its
   * texts; failed inside the batch: `error`, not billed) and the `ingested` mark, in one transaction. Idempotent:
   * a batch already ingested writes nothing.
   */
  ingest(row: EmbedBatchRow, results: Map<string, EmbedLineResult>, meta: { sweep_id: string; worker: string; latency_ms: number | null }): { written: number } {
    return this.db.transaction(() => {
      const cur = this.db.prepare(`SELECT status FROM embed_provider_batches WHERE run_id=? AND config_id=? AND round=?`).get(row.run_id, row.config_id, row.round) as { status: string } | undefined;
      if (cur?.status === 'ingested') return { written: 0 };
      const next = this.db.prepare(`SELECT COALESCE(MAX(try_no), 0) + 1 AS n FROM embed_batches WHERE run_id=? AND batch_id=?`);
      const insert = this.db.prepare(
        `INSERT INTO embed_batches (run_id, sweep_id, config_id, fingerprint, side, batch_id, try_no, status, provider, model, texts, chars, input_tokens_est, tokens_max, cost_usd_max,
                                    tokens_reported, tokens_estimated, cost_usd, http_status, error, started_at, latency_ms, worker)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const text = this.db.prepare(`INSERT OR IGNORE INTO embed_batch_texts (batch_row, config_id, fingerprint, text_sha256) VALUES (?, ?, ?, ?)`);
      const startedAt = row.submitted_at ?? row.prepared_at;
      for (const q of row.requests) {
        const r = results.get(q.custom_id) ?? { ok: false as const, custom_id: q.custom_id, http_status: null, error: `batch ${row.batch_id}: no result for ${q.custom_id}` };
        const id = batchIdOf(row.config_id, q.fingerprint, q.hashes);
        const n = (next.get(row.run_id, id) as { n: number }).n;
        const common = [row.run_id, meta.sweep_id, row.config_id, q.fingerprint, q.side, id, n] as const;
        const bounds = [row.provider, row.model, q.hashes.length, q.chars, q.input_tokens_est, q.tokens_max, q.cost_usd_max] as const;
        if (r.ok) {
          const info = insert.run(...common, 'ok', ...bounds, r.tokens, r.tokens_estimated, r.cost_usd, null, null, startedAt, meta.latency_ms, meta.worker);
          for (const h of q.hashes) text.run(Number(info.lastInsertRowid), row.config_id, q.fingerprint, h);
        } else {
          insert.run(...common, 'error', ...bounds, null, null, null, r.http_status, `batch ${row.batch_id}: ${r.error}`.slice(0, 2000), startedAt, meta.latency_ms, meta.worker);
        }
      }
      this.db.prepare(`UPDATE embed_provider_batches SET status='ingested', ingested_at=? WHERE run_id=? AND config_id=? AND round=?`).run(new Date().toISOString(), row.run_id, row.config_id, row.round);
      return { written: row.requests.length };
    }).immediate();
  }
}

/** One handle per file per process, like the ledgers'. */
const handles = handlesPerPath((path) => new EmbedBatchStore(path));
export const embedBatchStoreAt = handles.at;
export const closeEmbedBatchStores = handles.closeAll;

/**
 * A run's embedding batches without writing anything (for `runs` and `audit`): opened read-only; a ledger without
 * the table (no `embed --batch` yet) has none.
 */
export function readEmbedBatchRows(path: string, run_id?: string): EmbedBatchRow[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='embed_provider_batches'`).get()) return [];
    const rows = (run_id
      ? db.prepare(`SELECT * FROM embed_provider_batches WHERE run_id=? ORDER BY config_id, round`).all(run_id)
      : db.prepare(`SELECT * FROM embed_provider_batches ORDER BY run_id, config_id, round`).all()) as Raw[];
    return rows.map(parse);
  } finally {
    db.close();
  }
}
