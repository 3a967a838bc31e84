/**
 * The mutation engine's candidate cache (`.execretrieval/mutation-cache.sqlite`): enumeration is deterministic in
 * (mutate.py, code, function name), so the key hashes all three and a changed mutate.py invalidates every entry.
 *
 * Damage is never a candidate list (issue 37: a digit changed in 40 cached candidates, JSON still valid, changed
 * 109 of 500 corpus items of the next build). Like the execution and embedding caches, the file is checked on open
 * (`quick_check`, DamagedCacheError naming the repair command) and every row carries a checksum over its columns
 * (rowChecksum): a row that fails it, or whose response does not read back as a successful enumeration, is a miss
 * (counted, one line, enumerated again and replaced). `cache verify` / `cache repair` cover it (cacheRepair.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { MutationCandidate } from '../../core/mutation/types.ts';
import { projectRoot, stateDir } from '../paths.ts';
import { guardDamage } from '../exec/cache.ts';
import { openCacheDb } from '../storage/sqliteChecked.ts';
import { migrateChecksums, nowStamp, rowChecksum, rowVerifies, type StoredRow } from '../storage/rowChecksum.ts';

export const MUTATE_SCRIPT = join(projectRoot(), 'infra', 'python', 'mutate.py');
export const defaultMutationCachePath = (): string => join(stateDir(), 'mutation-cache.sqlite');

/** A successful enumeration as the cache stores it (the request id is the caller's, not part of the entry). */
export interface CachedEnumeration {
  ok: true;
  candidates: MutationCandidate[];
  rejected_splices: number;
}

/** The columns put writes; the checksum covers every one of them. */
export const MUTATION_COLUMNS = ['key', 'response', 'created_at'] as const;

/** A stored response that reads back as a successful enumeration, else null. */
export function parseEnumeration(text: unknown): CachedEnumeration | null {
  if (typeof text !== 'string') return null;
  try {
    const v = JSON.parse(text) as Partial<CachedEnumeration> | null;
    return v && v.ok === true && Array.isArray(v.candidates) && typeof v.rejected_splices === 'number' ? (v as CachedEnumeration) : null;
  } catch {
    return null;
  }
}

/** A stored row that is a result: checksum matches and the response reads back. */
export const mutationRowVerifies = (r: StoredRow): boolean => rowVerifies(r) && parseEnumeration(r.response) !== null;

export class MutationCache {
  private readonly db: Database.Database;
  private readonly scriptHash = createHash('sha256').update(readFileSync(MUTATE_SCRIPT)).digest('hex');
  private readonly getStmt: Database.Statement<[string], StoredRow>;
  private readonly putStmt: Database.Statement<[Record<string, string>]>;
  /** Rows that failed their checksum in this process (each one a miss, enumerated again and replaced). */
  damagedRows = 0;

  constructor(
    readonly path: string,
    opts: { check?: boolean } = {},
  ) {
    this.db = openCacheDb(path, { busyTimeoutMs: 10_000, check: opts.check });
    guardDamage(path, () => {
      this.db.exec('CREATE TABLE IF NOT EXISTS mutants (key TEXT PRIMARY KEY, response TEXT NOT NULL)');
      // created_at and the checksum came later: rows of an older file that read back are checksummed once, now.
      const cols = (this.db.prepare('PRAGMA table_info(mutants)').all() as { name: string }[]).map((c) => c.name);
      if (!cols.includes('created_at')) this.db.exec('ALTER TABLE mutants ADD COLUMN created_at TEXT');
      migrateChecksums(this.db, 'mutants', ['key'], (r) => parseEnumeration(r.response) !== null);
    });
    this.getStmt = this.db.prepare('SELECT * FROM mutants WHERE key = ?');
    // OR REPLACE: a row under this key is written only when it was absent or failed its checksum (a miss).
    this.putStmt = this.db.prepare(`INSERT OR REPLACE INTO mutants (${MUTATION_COLUMNS.join(', ')}, checksum) VALUES (@key, @response, @created_at, @checksum)`);
  }

  key(code: string, functionName: string): string {
    return createHash('sha256').update(JSON.stringify([this.scriptHash, code, functionName])).digest('hex');
  }

  /** The stored enumeration under `key`; undefined on a miss, or on a row that fails its checksum (counted, one line). */
  get(key: string): CachedEnumeration | undefined {
    const row = guardDamage(this.path, () => this.getStmt.get(key));
    if (!row) return undefined;
    if (mutationRowVerifies(row)) return parseEnumeration(row.response)!;
    this.damagedRows += 1;
    if (this.damagedRows === 1) {
      process.stderr.write(`${this.path}: a cached mutant enumeration failed its checksum: it is enumerated again and replaced, never used (\`execretrieval cache verify\` counts them)\n`);
    }
    return undefined;
  }

  putMany(rows: readonly [key: string, value: CachedEnumeration][]): void {
    guardDamage(this.path, () =>
      this.db.transaction(() => {
        for (const [key, value] of rows) {
          const content = { key, response: JSON.stringify(value), created_at: nowStamp() };
          this.putStmt.run({ ...content, checksum: rowChecksum(content) });
        }
      })(),
    );
  }

  close(): void {
    this.db.close();
  }
}
