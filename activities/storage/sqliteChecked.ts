/**
 * Opening a cache file so that damage is found on open, not as wrong answers later: `PRAGMA quick_check` (SQLite's
 * O(pages) structural check, cheaper than integrity_check: it skips index-vs-table cross checks) after the usual
 * WAL set-up. A garbage or truncated file fails at the first pragma with SQLITE_NOTADB / SQLITE_CORRUPT; both
 * become one DamagedCacheError naming the file and the repair command instead of a SqliteError stack trace.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DamagedCacheError, fatalFault, isSqliteDamage } from '../faults.ts';

export interface OpenOptions {
  busyTimeoutMs: number;
  /** Run `quick_check` on open (default true). `cache verify` / `repair` open without it to inspect the damage. */
  check?: boolean;
}

export function openCacheDb(path: string, opts: OpenOptions): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database | null = null;
  try {
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs}`);
    db.pragma('synchronous = NORMAL');
    if (opts.check !== false) {
      const problems = quickCheck(db, 1);
      if (problems.length) throw new DamagedCacheError(path, `quick_check: ${problems[0]}`);
    }
    return db;
  } catch (err) {
    db?.close();
    const fatal = fatalFault(err);
    if (fatal) throw fatal; // a full disk is not a damaged file
    if (isSqliteDamage(err)) throw new DamagedCacheError(path, `${(err as { code: string }).code}: ${(err as Error).message}`);
    throw err;
  }
}

/** SQLite's quick_check: [] when the file is sound, else up to `max` problems, one line each. */
export function quickCheck(db: Database.Database, max = 10): string[] {
  return checkLines(db.pragma(`quick_check(${max})`) as Record<string, string>[]);
}

/** integrity_check also cross-checks every index against its table (slower: `cache verify` uses it). */
export function integrityCheck(db: Database.Database, max = 10): string[] {
  return checkLines(db.pragma(`integrity_check(${max})`) as Record<string, string>[]);
}

/** A check's rows as single lines (SQLite puts "*** in database main ***" and a newline before the first). */
function checkLines(rows: Record<string, string>[]): string[] {
  const lines = rows
    .flatMap((r) => Object.values(r)[0].split('\n'))
    .map((l) => l.trim())
    .filter((l) => l && !/^\*\*\* in database/.test(l));
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
}
