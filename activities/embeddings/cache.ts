import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';

/** sha256 (hex) of the exact text sent to the provider, template included: the cache key's text part. */
export const textHash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Embedding cache: (config_id, invocation fingerprint, sha256 of text sent) → float32 vector. SQLite in WAL
 * mode so several workers read and write it at once; a rerun or a resumed run re-embeds nothing already here.
 * Rows are written per batch as soon as a batch returns, so a run killed half-way keeps what it paid for.
 */
export class EmbeddingCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, string, string], { vector: Buffer }>;
  private readonly putStmt: Database.Statement<[string, string, string, number, Buffer]>;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 30000');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS embeddings (
      config_id TEXT NOT NULL, fingerprint TEXT NOT NULL, text_sha256 TEXT NOT NULL,
      dims INTEGER NOT NULL, vector BLOB NOT NULL, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      PRIMARY KEY (config_id, fingerprint, text_sha256)) WITHOUT ROWID`);
    this.getStmt = this.db.prepare('SELECT vector FROM embeddings WHERE config_id = ? AND fingerprint = ? AND text_sha256 = ?');
    this.putStmt = this.db.prepare('INSERT OR REPLACE INTO embeddings (config_id, fingerprint, text_sha256, dims, vector) VALUES (?, ?, ?, ?, ?)');
  }

  /** Vectors found, by text hash. */
  getMany(configId: string, fingerprint: string, hashes: readonly string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const read = this.db.transaction(() => {
      for (const h of hashes) {
        const row = this.getStmt.get(configId, fingerprint, h);
        if (row) out.set(h, new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength)));
      }
    });
    read();
    return out;
  }

  putMany(configId: string, fingerprint: string, rows: readonly { hash: string; vector: Float32Array }[]): void {
    const write = this.db.transaction(() => {
      for (const r of rows) this.putStmt.run(configId, fingerprint, r.hash, r.vector.length, Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength));
    });
    write();
  }

  count(configId?: string): number {
    const row = configId
      ? (this.db.prepare('SELECT count(*) AS n FROM embeddings WHERE config_id = ?').get(configId) as { n: number })
      : (this.db.prepare('SELECT count(*) AS n FROM embeddings').get() as { n: number });
    return row.n;
  }

  close(): void {
    this.db.close();
  }
}
