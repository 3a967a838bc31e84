import type Database from 'better-sqlite3';
import { DamagedCacheError, isSqliteDamage } from '../faults.ts';
import { openCacheDb } from '../storage/sqliteChecked.ts';

/** One search answer as the endpoint gave it (checked before it is stored). */
export interface EndpointHit {
  corpus_id: string;
  score: number;
}

/**
 * Answers of retrieval endpoints: (endpoint id, invocation fingerprint: URL and k, sha256 of the query text) → the
 * ranked hits as JSON. A rerun or a resumed run sends no search it already has; a row that does not read back as a
 * hit list is a miss (searched again and replaced). SQLite in WAL mode, like the embedding cache.
 */
export class EndpointCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, string, string], { answer: string }>;
  private readonly putStmt: Database.Statement<[string, string, string, string]>;

  constructor(readonly path: string) {
    this.db = openCacheDb(path, { busyTimeoutMs: 30_000 });
    this.db.exec(`CREATE TABLE IF NOT EXISTS endpoint_answers (
      endpoint_id TEXT NOT NULL, fingerprint TEXT NOT NULL, query_sha256 TEXT NOT NULL, answer TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      PRIMARY KEY (endpoint_id, fingerprint, query_sha256)) WITHOUT ROWID`);
    this.getStmt = this.db.prepare('SELECT answer FROM endpoint_answers WHERE endpoint_id = ? AND fingerprint = ? AND query_sha256 = ?');
    this.putStmt = this.db.prepare('INSERT OR REPLACE INTO endpoint_answers (endpoint_id, fingerprint, query_sha256, answer) VALUES (?, ?, ?, ?)');
  }

  get(id: string, fingerprint: string, hash: string): EndpointHit[] | null {
    const row = this.guard(() => this.getStmt.get(id, fingerprint, hash));
    if (!row) return null;
    try {
      const v = JSON.parse(row.answer) as unknown;
      if (Array.isArray(v) && v.every((h) => typeof h?.corpus_id === 'string' && typeof h?.score === 'number' && Number.isFinite(h.score))) return v as EndpointHit[];
    } catch {
      // unreadable: a miss
    }
    return null;
  }

  put(id: string, fingerprint: string, hash: string, hits: readonly EndpointHit[]): void {
    this.guard(() => this.putStmt.run(id, fingerprint, hash, JSON.stringify(hits)));
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (isSqliteDamage(err)) throw new DamagedCacheError(this.path, `${(err as { code: string }).code}: ${(err as Error).message}`);
      throw err;
    }
  }

  close(): void {
    this.db.close();
  }
}
