import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { DamagedCacheError, isSqliteDamage } from '../faults.ts';
import { openCacheDb } from '../storage/sqliteChecked.ts';
import { migrateChecksums, nowStamp, rowChecksum, rowVerifies, type StoredRow } from '../storage/rowChecksum.ts';

/** sha256 (hex) of the exact text sent to the provider, template included: the cache key's text part. */
export const textHash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Embedding cache: (config_id, invocation fingerprint, sha256 of text sent) → float32 vector. SQLite in WAL
 * mode so several workers read and write it at once; a rerun or a resumed run re-embeds nothing already here.
 * Rows are written per batch as soon as a batch returns, so a run killed half-way keeps what it paid for.
 * The file is checked on open (`quick_check`); every row carries a checksum over its key and vector bytes
 * (rowChecksum): a row that fails it, or whose vector does not read back as `dims` plausible floats, is a miss
 * (counted, reported in one line, re-embedded and overwritten), never returned; SQLite-level damage stops with
 * DamagedCacheError.
 */
export class EmbeddingCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, string, string], StoredRow>;
  private readonly putStmt: Database.Statement<[Record<string, string | number | Buffer>]>;
  /** Rows that failed their checksum or plausibility in this process (each one a miss, re-embedded). */
  damagedRows = 0;

  constructor(
    readonly path: string,
    opts: { check?: boolean } = {},
  ) {
    this.db = openCacheDb(path, { busyTimeoutMs: 30_000, check: opts.check });
    this.db.exec(`CREATE TABLE IF NOT EXISTS embeddings (
      config_id TEXT NOT NULL, fingerprint TEXT NOT NULL, text_sha256 TEXT NOT NULL,
      dims INTEGER NOT NULL, vector BLOB NOT NULL, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      PRIMARY KEY (config_id, fingerprint, text_sha256)) WITHOUT ROWID`);
    // Files made before checksums: rows whose vectors read back plausible are checksummed once, now; the rest are misses.
    this.guard(() => void migrateChecksums(this.db, 'embeddings', EMBEDDING_KEY, (r) => vectorOf(r as { dims: unknown; vector: unknown }) !== null));
    this.getStmt = this.db.prepare('SELECT * FROM embeddings WHERE config_id = ? AND fingerprint = ? AND text_sha256 = ?');
    this.putStmt = this.db.prepare(
      `INSERT OR REPLACE INTO embeddings (${EMBEDDING_COLUMNS.join(', ')}, checksum) VALUES (${EMBEDDING_COLUMNS.map((c) => `@${c}`).join(', ')}, @checksum)`,
    );
  }

  /** Vectors found, by text hash; a damaged row is left out (so it is embedded again and replaced). */
  getMany(configId: string, fingerprint: string, hashes: readonly string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const read = this.db.transaction(() => {
      for (const h of hashes) {
        const row = this.getStmt.get(configId, fingerprint, h);
        if (!row) continue;
        const v = embeddingRowVector(row);
        if (v) out.set(h, v);
        else this.noteDamaged();
      }
    });
    this.guard(read);
    return out;
  }

  putMany(configId: string, fingerprint: string, rows: readonly { hash: string; vector: Float32Array }[]): void {
    const write = this.db.transaction(() => {
      for (const r of rows) {
        const content = {
          config_id: configId,
          fingerprint,
          text_sha256: r.hash,
          dims: r.vector.length,
          vector: Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength),
          created_at: nowStamp(),
        };
        this.putStmt.run({ ...content, checksum: rowChecksum(content) });
      }
    });
    this.guard(write);
  }

  /** One line on the first damaged row (the rest are counted): a re-embedding is never silent. */
  private noteDamaged(): void {
    this.damagedRows += 1;
    if (this.damagedRows === 1) {
      process.stderr.write(`${this.path}: a cached embedding failed its checksum: it is embedded again and replaced, never used (\`execretrieval cache verify\` counts them)\n`);
    }
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

/** The columns putMany writes; the checksum covers every one of them (rowChecksum). */
export const EMBEDDING_COLUMNS = ['config_id', 'fingerprint', 'text_sha256', 'dims', 'vector', 'created_at'] as const;
export const EMBEDDING_KEY = ['config_id', 'fingerprint', 'text_sha256'] as const;

/**
 * No embedding model emits a component this large (normalised vectors stay within 1; raw ones within the
 * hundreds). Random bytes decode as finite floats too, but with exponents spread over the whole range: a 64-d
 * vector of them has a component past this bound with probability ~1 - 0.57^64 (norms near 1e38).
 */
export const MAX_ABS_COMPONENT = 1e6;

/** A stored row's vector, or null when it does not read back as `dims` finite, plausible float32 values. */
export function vectorOf(row: { dims: unknown; vector: unknown }): Float32Array | null {
  const { dims, vector } = row;
  if (typeof dims !== 'number' || !Number.isInteger(dims) || dims <= 0 || !Buffer.isBuffer(vector) || vector.byteLength !== dims * 4) return null;
  const v = new Float32Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i]) || Math.abs(v[i]) > MAX_ABS_COMPONENT) return null;
  return v;
}

/** The vector of a stored row that verifies (checksum over key + vector bytes, and a plausible vector), else null. */
export function embeddingRowVector(row: StoredRow): Float32Array | null {
  return rowVerifies(row) ? vectorOf(row as { dims: unknown; vector: unknown }) : null;
}
