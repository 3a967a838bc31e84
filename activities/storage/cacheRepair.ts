/**
 * `cache verify` and `cache repair` for the two SQLite caches (execution, embeddings). Verify runs SQLite's full
 * `integrity_check` and reads every row back through the same validity test the cache applies on lookup. Repair
 * copies every row it can still read and that passes that test into a fresh file, then swaps it in; rows on
 * damaged pages are dropped (they are recomputed, or re-embedded, on the next run). The damaged file is kept
 * beside it as `<file>.damaged` (with the execution cache's payments, the pipeline's audit: a repaired file
 * starts without them). Run either while nothing else has the cache open.
 */
import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { DamagedCacheError, isSqliteDamage } from '../faults.ts';
import { ExecCache, parseOutcomes } from '../exec/cache.ts';
import { EmbeddingCache, vectorOf } from '../embeddings/cache.ts';
import { integrityCheck, openCacheDb, quickCheck } from './sqliteChecked.ts';

type Row = Record<string, unknown>;

interface CacheKind {
  table: string;
  /** Columns copied by repair, in insert order. */
  columns: string[];
  /** Columns later versions added: copied where the damaged file has them (NULL otherwise, as the cache reads old rows). */
  optional?: string[];
  /** Primary key columns: a row's identity when merging forward and backward scans. */
  key: string[];
  /** A rowid table (rows can also be fetched one by one past a damaged page); WITHOUT ROWID tables cannot. */
  rowid: boolean;
  valid: (r: Row) => boolean;
  /** Opens the cache class at a path (creates its schema). */
  create: (path: string) => { close(): void };
}

const KINDS: Record<'exec' | 'embeddings', CacheKind> = {
  exec: {
    table: 'exec_runs',
    columns: ['key', 'content_key', 'timeout_s', 'runner_version', 'outcomes', 'n_pass', 'timed_out', 'wall_ms', 'created_at'],
    // A canonical's CPU time sets its mutants' limits: a repair that dropped it would fall back to wall time; a
    // dropped judged list would make the gate count no parent-judged pass for that result.
    optional: ['cpu_ms', 'judged'],
    key: ['key'],
    rowid: true,
    valid: (r) => typeof r.key === 'string' && typeof r.content_key === 'string' && typeof r.timeout_s === 'number' && typeof r.wall_ms === 'number' && parseOutcomes(r.outcomes) !== null,
    create: (p) => new ExecCache(p),
  },
  embeddings: {
    table: 'embeddings',
    columns: ['config_id', 'fingerprint', 'text_sha256', 'dims', 'vector', 'created_at'],
    key: ['config_id', 'fingerprint', 'text_sha256'],
    rowid: false,
    valid: (r) => typeof r.config_id === 'string' && typeof r.text_sha256 === 'string' && vectorOf({ dims: r.dims, vector: r.vector }) !== null,
    create: (p) => new EmbeddingCache(p),
  },
};

export interface CacheHealth {
  path: string;
  kind: 'exec' | 'embeddings' | 'unknown';
  /** integrity_check lines (empty when SQLite finds the file sound), or why it could not be opened. */
  problems: string[];
  rows_readable: number;
  /** Rows that read back but fail the cache's own validity test (they would be a miss / a fault). */
  rows_invalid: number;
  /** true when the scan of the table stopped at an unreadable page. */
  scan_incomplete: boolean;
  ok: boolean;
}

function kindOf(db: Database.Database): 'exec' | 'embeddings' | 'unknown' {
  const names = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type='table'`).all() as { name: string }[]).map((r) => r.name));
  return names.has('exec_runs') ? 'exec' : names.has('embeddings') ? 'embeddings' : 'unknown';
}

/**
 * Every row that can still be read. Both ends of the table by key (a damaged page stops each direction there);
 * in a rowid table also every rowid up to the largest one seen (table or index), fetched one by one, so rows on
 * sound leaves between damaged ones are kept too. A WITHOUT ROWID table (the embedding cache) keeps the two ends.
 */
function salvageRows(db: Database.Database, kind: CacheKind): { rows: Map<string, Row>; incomplete: boolean } {
  const rows = new Map<string, Row>();
  let incomplete = false;
  const keep = (r: Row) => rows.set(kind.key.map((k) => String(r[k])).join('\u0000'), r);
  const tolerate = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      if (!isSqliteDamage(err)) throw err;
      incomplete = true;
    }
  };
  let present: string[] = [];
  tolerate(() => {
    present = (db.prepare(`PRAGMA table_info(${kind.table})`).all() as { name: string }[]).map((c) => c.name);
  });
  const cols = [...kind.columns, ...(kind.optional ?? []).filter((c) => present.includes(c))].join(', ');
  for (const dir of ['ASC', 'DESC']) {
    tolerate(() => {
      for (const r of db.prepare(`SELECT ${cols} FROM ${kind.table} ORDER BY ${kind.key.map((k) => `${k} ${dir}`).join(', ')}`).iterate() as IterableIterator<Row>) keep(r);
    });
  }
  if (kind.rowid && incomplete) {
    let maxRowid = 0;
    tolerate(() => {
      for (const r of db.prepare(`SELECT rowid AS id FROM ${kind.table} ORDER BY rowid DESC`).iterate() as IterableIterator<{ id: number }>) {
        maxRowid = Math.max(maxRowid, r.id);
        break;
      }
    });
    // Every index holds every rowid: the largest one there bounds the probe when the table's last page is gone.
    const indexes = (db.prepare(`SELECT name FROM sqlite_master WHERE type='index' AND tbl_name=?`).all(kind.table) as { name: string }[]).map((r) => r.name);
    for (const ix of indexes) {
      tolerate(() => {
        for (const r of db.prepare(`SELECT rowid AS id FROM ${kind.table} INDEXED BY "${ix}"`).iterate() as IterableIterator<{ id: number }>) maxRowid = Math.max(maxRowid, r.id);
      });
    }
    const one = db.prepare(`SELECT ${cols} FROM ${kind.table} WHERE rowid = ?`);
    for (let id = 1; id <= maxRowid; id++) {
      tolerate(() => {
        const r = one.get(id) as Row | undefined;
        if (r) keep(r);
      });
    }
  }
  return { rows, incomplete };
}

function openRaw(path: string): Database.Database {
  return openCacheDb(path, { busyTimeoutMs: 10_000, check: false });
}

export function verifyCache(path: string): CacheHealth {
  const h: CacheHealth = { path, kind: 'unknown', problems: [], rows_readable: 0, rows_invalid: 0, scan_incomplete: false, ok: false };
  if (!existsSync(path)) return { ...h, problems: ['no such file'] };
  let db: Database.Database;
  try {
    db = openRaw(path);
  } catch (err) {
    return { ...h, problems: [(err as Error).message] };
  }
  try {
    h.problems = integrityCheck(db, 20);
    h.kind = kindOf(db);
    if (h.kind !== 'unknown') {
      const k = KINDS[h.kind];
      const { rows: found, incomplete } = salvageRows(db, k);
      h.scan_incomplete = incomplete;
      for (const r of found.values()) {
        if (k.valid(r)) h.rows_readable += 1;
        else h.rows_invalid += 1;
      }
    }
  } catch (err) {
    if (!isSqliteDamage(err)) throw err;
    h.problems.push((err as Error).message);
  } finally {
    db.close();
  }
  h.ok = h.problems.length === 0 && h.rows_invalid === 0 && !h.scan_incomplete && h.kind !== 'unknown';
  return h;
}

export interface RepairResult {
  path: string;
  kind: 'exec' | 'embeddings' | 'unknown';
  kept: number;
  dropped_invalid: number;
  /** Where the damaged file was moved. */
  damaged_copy: string;
}

const sidecars = (p: string) => [`${p}-wal`, `${p}-shm`];

/** Rebuilds `path` from its readable, valid rows; an unreadable file is moved aside and an empty cache starts. */
export function repairCache(path: string): RepairResult {
  let kind: RepairResult['kind'] = 'unknown';
  let kept: Row[] = [];
  let invalid = 0;
  try {
    const db = openRaw(path);
    try {
      kind = kindOf(db);
      if (kind !== 'unknown') {
        const k = KINDS[kind];
        for (const r of salvageRows(db, k).rows.values()) {
          if (k.valid(r)) kept.push(r);
          else invalid += 1;
        }
      }
    } finally {
      db.close();
    }
  } catch (err) {
    if (!isSqliteDamage(err) && !(err instanceof DamagedCacheError)) throw err;
    kept = [];
  }
  const tmp = `${path}.repair-${process.pid}`;
  for (const f of [tmp, ...sidecars(tmp)]) rmSync(f, { force: true });
  if (kind !== 'unknown') {
    const k = KINDS[kind];
    k.create(tmp).close();
    const out = new Database(tmp);
    try {
      const all = [...k.columns, ...(k.optional ?? [])];
      const ins = out.prepare(`INSERT OR IGNORE INTO ${k.table} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})`);
      out.transaction(() => {
        for (const r of kept) ins.run(...all.map((c) => (r[c] ?? null) as string | number | Buffer | null));
      })();
      out.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      out.close();
    }
  }
  const damaged = moveAside(path);
  if (kind !== 'unknown') {
    renameSync(tmp, path);
    for (const s of sidecars(tmp)) rmSync(s, { force: true });
  }
  return { path, kind, kept: kind === 'unknown' ? 0 : kept.length, dropped_invalid: invalid, damaged_copy: damaged };
}

/**
 * Moves a cache file and its WAL sidecars to `<file>.damaged` (replacing an older damaged copy). The sidecars go
 * with it: a stale `-wal` left beside a fresh file would be replayed into it.
 */
function moveAside(path: string): string {
  const damaged = `${path}.damaged`;
  for (const f of [damaged, ...sidecars(damaged)]) rmSync(f, { force: true });
  if (existsSync(path)) renameSync(path, damaged);
  for (const s of sidecars(path)) if (existsSync(s)) renameSync(s, s.replace(path, damaged));
  return damaged;
}

/**
 * `--rebuild-cache`: a cache file that fails SQLite's quick_check (or cannot be opened as a database) is moved
 * aside as `<file>.damaged` and the next open starts an empty cache, recomputed from scratch. Null when the file
 * is absent or sound (then it is left exactly as it was). Nothing else may have the cache open.
 */
export function rebuildIfDamaged(path: string): { damaged_copy: string; detail: string } | null {
  if (!existsSync(path)) return null;
  let detail: string | null = null;
  try {
    const db = openRaw(path);
    try {
      const problems = quickCheck(db, 1);
      if (problems.length) detail = `quick_check: ${problems[0]}`;
    } finally {
      db.close();
    }
  } catch (err) {
    if (!isSqliteDamage(err) && !(err instanceof DamagedCacheError)) throw err;
    detail = err instanceof DamagedCacheError ? err.detail : (err as Error).message;
  }
  return detail === null ? null : { damaged_copy: moveAside(path), detail };
}
