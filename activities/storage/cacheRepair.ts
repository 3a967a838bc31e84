/**
 * `cache verify` and `cache repair` for the three SQLite caches (execution, embeddings, mutation candidates). Verify runs SQLite's full
 * `integrity_check` and reads every row back through the same test the cache applies on lookup: its checksum
 * (rowChecksum, over every column) and the content's validity. Repair keeps exactly the rows that pass that test:
 * every row SQLite can still reach, plus, when pages are damaged (an overwritten root page hides every leaf below
 * it), every row a walk over the file's pages finds that verifies (pageWalk.ts, the `.recover` logic); the rows
 * it cannot recover are recomputed, or re-embedded, on the next run, and it says how many rows it dropped. The
 * damaged file is kept beside it as `<file>.damaged` (with the execution cache's payments, the pipeline's audit:
 * a repaired file starts without them). Run either while nothing else has the cache open.
 */
import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DamagedCacheError, isSqliteDamage } from '../faults.ts';
import { ExecCache, execRowVerifies } from '../exec/cache.ts';
import { EMBEDDING_KEY, EmbeddingCache, embeddingRowVector } from '../embeddings/cache.ts';
import { MutationCache, mutationRowVerifies } from '../mutation/cache.ts';
import { integrityCheck, openCacheDb, quickCheck } from './sqliteChecked.ts';
import { walkRecords } from './pageWalk.ts';
import { CHECKSUM_COLUMN } from './rowChecksum.ts';

type Row = Record<string, unknown>;
type Kind = 'exec' | 'embeddings' | 'mutation';

interface CacheKind {
  table: string;
  /** Primary key columns: a row's identity when merging the scans. */
  key: readonly string[];
  /** A rowid table (rows can also be fetched one by one past a damaged page); WITHOUT ROWID tables cannot. */
  rowid: boolean;
  /** The cache's own lookup test: checksum and content. */
  verifies: (r: Row) => boolean;
  /** Opens the cache class at a path (creates its schema). */
  create: (path: string) => { close(): void };
}

const KINDS: Record<Kind, CacheKind> = {
  exec: { table: 'exec_runs', key: ['key'], rowid: true, verifies: execRowVerifies, create: (p) => new ExecCache(p) },
  embeddings: { table: 'embeddings', key: EMBEDDING_KEY, rowid: false, verifies: (r) => embeddingRowVector(r) !== null, create: (p) => new EmbeddingCache(p) },
  mutation: { table: 'mutants', key: ['key'], rowid: true, verifies: mutationRowVerifies, create: (p) => new MutationCache(p) },
};

export interface CacheHealth {
  path: string;
  kind: Kind | 'unknown';
  /** integrity_check lines (empty when SQLite finds the file sound), or why it could not be opened. */
  problems: string[];
  /** Rows that read back and verify (checksum and content). */
  rows_readable: number;
  /** Rows that read back but fail their checksum or content test (each would be a miss, recomputed). */
  rows_invalid: number;
  /** true when the scan of the table stopped at an unreadable page. */
  scan_incomplete: boolean;
  ok: boolean;
}

function kindOf(db: Database.Database): Kind | 'unknown' {
  const names = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type='table'`).all() as { name: string }[]).map((r) => r.name));
  return names.has('exec_runs') ? 'exec' : names.has('embeddings') ? 'embeddings' : names.has('mutants') ? 'mutation' : 'unknown';
}

const keyOf = (kind: CacheKind, r: Row) => kind.key.map((k) => String(r[k])).join('\u0000');

/**
 * Every row SQLite can still read. Both ends of the table by key (a damaged page stops each direction there); in
 * a rowid table also every rowid up to the largest one seen (table or index), fetched one by one, so rows on
 * sound leaves between damaged ones are kept too.
 */
function salvageRows(db: Database.Database, kind: CacheKind): { rows: Map<string, Row>; incomplete: boolean } {
  const rows = new Map<string, Row>();
  let incomplete = false;
  const keep = (r: Row) => rows.set(keyOf(kind, r), r);
  const tolerate = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      if (!isSqliteDamage(err)) throw err;
      incomplete = true;
    }
  };
  for (const dir of ['ASC', 'DESC']) {
    tolerate(() => {
      for (const r of db.prepare(`SELECT * FROM ${kind.table} ORDER BY ${kind.key.map((k) => `${k} ${dir}`).join(', ')}`).iterate() as IterableIterator<Row>) keep(r);
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
    const one = db.prepare(`SELECT * FROM ${kind.table} WHERE rowid = ?`);
    for (let id = 1; id <= maxRowid; id++) {
      tolerate(() => {
        const r = one.get(id) as Row | undefined;
        if (r) keep(r);
      });
    }
  }
  return { rows, incomplete };
}

/** Column names of `table` in the file's own schema, or null when its schema cannot be read. */
function columnsOf(db: Database.Database, table: string): string[] | null {
  try {
    const cols = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
    return cols.length ? cols : null;
  } catch (err) {
    if (!isSqliteDamage(err)) throw err;
    return null;
  }
}

/** The columns today's code gives `kind`'s table (its schema created in a scratch file). */
function currentColumns(kind: Kind): string[] {
  const tmp = join(tmpdir(), `execretrieval-schema-${process.pid}-${kind}.sqlite`);
  for (const f of [tmp, ...sidecars(tmp)]) rmSync(f, { force: true });
  try {
    KINDS[kind].create(tmp).close();
    const db = new Database(tmp, { readonly: true });
    try {
      return columnsOf(db, KINDS[kind].table)!;
    } finally {
      db.close();
    }
  } finally {
    for (const f of [tmp, ...sidecars(tmp)]) rmSync(f, { force: true });
  }
}

/**
 * Rows of `kind` found by walking the file's pages: each record is read as a row under each candidate column
 * order (the file's own schema when it can be read, then today's), and kept under the first one it verifies with.
 */
function walkRows(path: string, kind: Kind, candidates: readonly (readonly string[])[]): Map<string, Row> {
  const k = KINDS[kind];
  const rows = new Map<string, Row>();
  for (const rec of walkRecords(path)) {
    for (const cols of candidates) {
      if (rec.values.length > cols.length) continue;
      const r: Row = Object.fromEntries(cols.map((c, i) => [c, i < rec.values.length ? rec.values[i] : null]));
      if (!(CHECKSUM_COLUMN in r) || !k.verifies(r)) continue;
      rows.set(keyOf(k, r), r);
      break;
    }
  }
  return rows;
}

/** The table's row count read off one of its indexes that is still whole (each holds one entry per row), else null. */
function countByIndex(db: Database.Database, table: string): number | null {
  let best: number | null = null;
  let indexes: string[] = [];
  try {
    indexes = (db.prepare(`SELECT name FROM sqlite_master WHERE type='index' AND tbl_name=?`).all(table) as { name: string }[]).map((r) => r.name);
  } catch (err) {
    if (!isSqliteDamage(err)) throw err;
  }
  for (const ix of indexes) {
    try {
      const n = (db.prepare(`SELECT count(*) AS n FROM ${table} INDEXED BY "${ix}"`).get() as { n: number }).n;
      best = Math.max(best ?? 0, n);
    } catch (err) {
      if (!isSqliteDamage(err)) throw err;
    }
  }
  return best;
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
        if (k.verifies(r)) h.rows_readable += 1;
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
  kind: Kind | 'unknown';
  kept: number;
  /** Rows that read back but failed their checksum or content test. */
  dropped_invalid: number;
  /** Of `kept`, rows SQLite could not reach that the page walk recovered. */
  recovered: number;
  /**
   * Rows the damaged table held, where an index of it still counts them completely (the execution cache's key
   * index); null when nothing does (rows on overwritten pages are then dropped uncounted).
   */
  rows_before: number | null;
  /** Where the damaged file was moved. */
  damaged_copy: string;
}

const sidecars = (p: string) => [`${p}-wal`, `${p}-shm`];

/**
 * Rebuilds `path` from the rows that verify: those SQLite can still read, and, when it cannot read them all (or
 * not even the schema), those a page walk recovers. A file where nothing of either cache can be found is moved
 * aside and an empty cache starts.
 */
export function repairCache(path: string): RepairResult {
  let kind: RepairResult['kind'] = 'unknown';
  const kept = new Map<string, Row>();
  let invalid = 0;
  let recovered = 0;
  let ownColumns: string[] | null = null;
  let needWalk = true;
  let rowsBefore: number | null = null;
  try {
    const db = openRaw(path);
    try {
      kind = kindOf(db);
      if (kind !== 'unknown') {
        const k = KINDS[kind];
        ownColumns = columnsOf(db, k.table);
        const { rows, incomplete } = salvageRows(db, k);
        for (const [key, r] of rows) {
          if (k.verifies(r)) kept.set(key, r);
          else invalid += 1;
        }
        needWalk = incomplete;
        rowsBefore = countByIndex(db, k.table);
      }
    } finally {
      db.close();
    }
  } catch (err) {
    if (!isSqliteDamage(err) && !(err instanceof DamagedCacheError)) throw err;
    kind = 'unknown';
  }
  if (needWalk) {
    // The schema may be gone with page 1: then try every cache's column order and take the one that finds rows.
    const kinds: Kind[] = kind === 'unknown' ? ['exec', 'embeddings', 'mutation'] : [kind];
    let best: { kind: Kind; rows: Map<string, Row> } | null = null;
    for (const kd of kinds) {
      const candidates = [...(ownColumns ? [ownColumns] : []), currentColumns(kd)];
      const rows = walkRows(path, kd, candidates);
      if (!best || rows.size > best.rows.size) best = { kind: kd, rows };
    }
    if (best && (kind !== 'unknown' || best.rows.size > 0)) {
      kind = best.kind;
      for (const [key, r] of best.rows) {
        if (kept.has(key)) continue;
        kept.set(key, r);
        recovered += 1;
      }
    }
  }
  const tmp = `${path}.repair-${process.pid}`;
  for (const f of [tmp, ...sidecars(tmp)]) rmSync(f, { force: true });
  if (kind !== 'unknown') {
    const k = KINDS[kind];
    k.create(tmp).close();
    const out = new Database(tmp);
    try {
      const cols = columnsOf(out, k.table)!;
      const ins = out.prepare(`INSERT OR IGNORE INTO ${k.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      out.transaction(() => {
        for (const r of kept.values()) ins.run(...cols.map((c) => (r[c] ?? null) as string | number | Buffer | null));
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
  return { path, kind, kept: kind === 'unknown' ? 0 : kept.size, dropped_invalid: invalid, recovered, rows_before: rowsBefore, damaged_copy: damaged };
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
