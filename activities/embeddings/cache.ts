import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { DamagedCacheError, isSqliteDamage } from '../faults.ts';
import { openCacheDb } from '../storage/sqliteChecked.ts';

/** sha256 (hex) of the exact text sent to the provider, template included: the cache key's text part. */
export const textHash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Embedding cache: (config_id, invocation fingerprint, sha256 of text sent) → float32 vector. SQLite in WAL
 * mode so several workers read and write it at once; a rerun or a resumed run re-embeds nothing already here.
 * Rows are written per batch as soon as a batch returns, so a run killed half-way keeps what it paid for.
 * The file is checked on open (`quick_check`); a row whose vector does not read back as `dims` finite floats is a
 * miss (re-embedded and overwritten), never returned; SQLite-level damage stops with DamagedCacheError.
 */
export class EmbeddingCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, string, string], { dims: number; vector: Buffer }>;
  private readonly putStmt: Database.Statement<[string, string, string, number, Buffer]>;

  constructor(
    readonly path: string,
    opts: { check?: boolean } = {},
  ) {
    this.db = openCacheDb(path, { busyTimeoutMs: 30_000, check: opts.check });
    this.db.exec(`CREATE TABLE IF NOT EXISTS embeddings (
      config_id TEXT NOT NULL, fingerprint TEXT NOT NULL, text_sha256 TEXT NOT NULL,
      dims INTEGER NOT NULL, vector BLOB NOT NULL, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      PRIMARY KEY (config_id, fingerprint, text_sha256)) WITHOUT ROWID`);
    this.getStmt = this.db.prepare('SELECT dims, vector FROM embeddings WHERE config_id = ? AND fingerprint = ? AND text_sha256 = ?');
    this.putStmt = this.db.prepare('INSERT OR REPLACE INTO embeddings (config_id, fingerprint, text_sha256, dims, vector) VALUES (?, ?, ?, ?, ?)');
  }

  /** Vectors found, by text hash; a damaged row is left out (so it is embedded again and replaced). */
  getMany(configId: string, fingerprint: string, hashes: readonly string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const read = this.db.transaction(() => {
      for (const h of hashes) {
        const row = this.getStmt.get(configId, fingerprint, h);
        const v = row ? vectorOf(row) : null;
        if (v) out.set(h, v);
      }
    });
    this.guard(read);
    return out;
  }

  putMany(configId: string, fingerprint: string, rows: readonly { hash: string; vector: Float32Array }[]): void {
    const write = this.db.transaction(() => {
      for (const r of rows) this.putStmt.run(configId, fingerprint, r.hash, r.vector.length, Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength));
    });
    this.guard(write);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (isSqliteDamage(err)) throw new DamagedCacheError(this.path, `${(err as { code: string }).code}: ${(err as Error).message}`);
      throw err;
    }
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

/** A stored row's vector, or null when it does not read back as `dims` finite float32 values. */
export function vectorOf(row: { dims: unknown; vector: unknown }): Float32Array | null {
  const { dims, vector } = row;
  if (typeof dims !== 'number' || !Number.isInteger(dims) || dims <= 0 || !Buffer.isBuffer(vector) || vector.byteLength !== dims * 4) return null;
  const v = new Float32Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return null;
  return v;
}
