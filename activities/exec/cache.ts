import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { tableFromArrays } from 'apache-arrow';
import { isBareFailure, type TestSuite } from '../../schemas/exec.ts';
import { DamagedCacheError, isSqliteDamage } from '../faults.ts';
import { openCacheDb } from '../storage/sqliteChecked.ts';
import { writeParquet } from '../storage/parquet.ts';

export interface CachedRun {
  outcomes: string[];
  wall_ms: number;
  /** The child's CPU time; absent on rows written before it was recorded. */
  cpu_ms?: number;
  /** How each outcome was judged (ExecResult.judged); absent on rows written before it was recorded. */
  judged?: ('parent' | 'child')[];
}

/** sha256 over the parts, each length-delimited so no two inputs collide. */
function digest(parts: readonly string[]): string {
  const h = createHash('sha256');
  for (const part of parts) {
    const b = Buffer.from(part, 'utf8');
    h.update(`${b.length}:`).update(b);
  }
  return h.digest('hex');
}

/** What ran: (runner version, code, suite), whatever the time limit. */
export function execContentKey(runnerVersion: string, code: string, suite: TestSuite): string {
  const canonicalSuite =
    suite.kind === 'asserts'
      ? JSON.stringify(['asserts', suite.tests, suite.setup ?? null])
      : JSON.stringify(['check', suite.program, suite.entry_point]);
  return digest([runnerVersion, code, canonicalSuite]);
}

/** One stored run: what ran (its content key) under one timeout. The row's primary key. */
export function execRunKey(contentKey: string, timeoutS: number): string {
  return digest([contentKey, String(timeoutS)]);
}

/**
 * The execution cache: one row per distinct (runner version, code, suite, timeout). SQLite in WAL mode so
 * several worker processes can read and write it at once.
 *
 * A lookup under timeout t also takes a run stored under a shorter timeout when none of its tests timed out:
 * the suite ran to completion, deterministically, so a longer limit cannot change any outcome. That is what
 * lets the gate (default timeout) reuse the mutation engine's verification runs (shorter timeout).
 *
 * A run that timed out under a shorter limit answers a longer one only when the caller asks with
 * `timeoutFails` (ExecRequest.timeout_fails) and the run also failed a test by wrong output (a bare FAIL): that
 * test finished, deterministically, so the suite fails under any limit; the caller needs exactly "does it fail,
 * and how", and takes the tests that hit the shorter limit as failed. The gate's distractor stage and scoring
 * ask so: a distractor verification kept has such a failure, and a mutant loop that never ends times out under
 * 5 s as it did under 0.2 s (without this rule each one cost the gate, and scoring when it is retrieved, 5 s
 * more). A run with only timeouts and crashes never answers a longer limit: under it, it might pass. Every other
 * lookup (a canonical, which must pass) gets only its own limit's timeouts.
 *
 * Damage is never an answer: the file is checked on open (`quick_check`), and a row that cannot be read back, or
 * reads back as something other than a list of outcomes, throws DamagedCacheError (file + repair command), which
 * the oracle returns as an `infra_error` result rather than a verdict.
 */
/** An exec_runs row as put inserts it: key, content key, timeout, runner version, outcomes, n_pass, timed_out, wall_ms, cpu_ms, judged. */
type RunRow = [string, string, number, string, string, number, number, number, number | null, string | null];

export class ExecCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, number, number], { outcomes: string; wall_ms: number; cpu_ms: number | null; timeout_s: number; timed_out: number; judged: string | null }>;
  private readonly putStmt: Database.Statement<RunRow>;
  private readonly payStmt: Database.Statement<[string, string, number]>;
  /** The verdict and, with a payer, its payment: one transaction, built once (put runs once per execution). */
  private readonly putPaid: (row: RunRow, paidBy: string) => void;

  constructor(
    readonly path: string,
    opts: { check?: boolean } = {},
  ) {
    this.db = openCacheDb(path, { busyTimeoutMs: 10_000, check: opts.check });
    // A new table rather than exec_cache: that one's key folded the timeout into the hash, so its rows cannot
    // be found by content. Files that still hold it keep working; its rows are ignored.
    this.db.exec(`CREATE TABLE IF NOT EXISTS exec_runs (
      key TEXT PRIMARY KEY,
      content_key TEXT NOT NULL,
      timeout_s REAL NOT NULL,
      runner_version TEXT NOT NULL,
      outcomes TEXT NOT NULL,
      n_pass INTEGER NOT NULL,
      timed_out INTEGER NOT NULL,
      wall_ms REAL NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX IF NOT EXISTS exec_runs_content ON exec_runs (content_key, timeout_s)`);
    // cpu_ms came later (mutants' limits derive from it): files made before get the column, NULL in old rows.
    const columns = this.db.prepare('PRAGMA table_info(exec_runs)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'cpu_ms')) this.db.exec('ALTER TABLE exec_runs ADD COLUMN cpu_ms REAL');
    // judged came later too (gate profiles count parent-judged passes from it): NULL in older rows.
    if (!columns.some((c) => c.name === 'judged')) this.db.exec('ALTER TABLE exec_runs ADD COLUMN judged TEXT');
    // One row per execution a payer (ExecRequest.paid_by) ran, written in the verdict's own transaction: a
    // process killed at any instant has either stored the verdict and its payment, or neither. A log line
    // written after the verdict missed the execution when a SIGKILL fell between the two.
    this.db.exec(`CREATE TABLE IF NOT EXISTS exec_payments (
      key TEXT NOT NULL,
      paid_by TEXT NOT NULL,
      pid INTEGER NOT NULL,
      at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX IF NOT EXISTS exec_payments_payer ON exec_payments (paid_by)`);
    this.payStmt = this.db.prepare('INSERT INTO exec_payments (key, paid_by, pid) VALUES (?, ?, ?)');
    this.putPaid = this.db.transaction((row: RunRow, paidBy: string) => {
      this.putStmt.run(...row);
      this.payStmt.run(row[0], paidBy, process.pid);
    });
    // The run under exactly t first, then shorter runs longest first; get() takes the first that answers (the
    // class comment): one answer for one state.
    this.getStmt = this.db.prepare(`SELECT outcomes, wall_ms, cpu_ms, timeout_s, timed_out, judged FROM exec_runs
      WHERE content_key = ? AND timeout_s <= ? ORDER BY timeout_s = ? DESC, timeout_s DESC`);
    this.putStmt = this.db.prepare(
      `INSERT OR IGNORE INTO exec_runs (key, content_key, timeout_s, runner_version, outcomes, n_pass, timed_out, wall_ms, cpu_ms, judged)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** The stored run that answers (content, timeoutS), if any; `timeoutFails`: see the class comment. */
  get(contentKey: string, timeoutS: number, timeoutFails = false): CachedRun | undefined {
    const rows = this.guard(() => this.getStmt.all(contentKey, timeoutS, timeoutS));
    for (const row of rows) {
      const outcomes = parseOutcomes(row.outcomes);
      if (!outcomes || typeof row.wall_ms !== 'number' || !(row.cpu_ms === null || typeof row.cpu_ms === 'number')) {
        throw new DamagedCacheError(this.path, `row for content ${contentKey.slice(0, 12)}… does not read back as a list of outcomes`);
      }
      const answers = row.timeout_s === timeoutS || !row.timed_out || (timeoutFails && outcomes.some(isBareFailure));
      if (!answers) continue;
      const out: CachedRun = row.cpu_ms === null ? { outcomes, wall_ms: row.wall_ms } : { outcomes, wall_ms: row.wall_ms, cpu_ms: row.cpu_ms };
      const judged = parseJudged(row.judged, outcomes.length);
      if (judged) out.judged = judged;
      return out;
    }
    return undefined;
  }

  /** Stores a run; with `paidBy` (the run just executed for that payer) also its payment, in one transaction. */
  put(contentKey: string, timeoutS: number, runnerVersion: string, run: CachedRun, paidBy?: string): void {
    const nPass = run.outcomes.filter((o) => o === 'pass').length;
    const timedOut = run.outcomes.includes('TIMEOUT') ? 1 : 0;
    const row: RunRow = [execRunKey(contentKey, timeoutS), contentKey, timeoutS, runnerVersion, JSON.stringify(run.outcomes), nPass, timedOut, run.wall_ms, run.cpu_ms ?? null, run.judged ? JSON.stringify(run.judged) : null];
    // Without a payer a single INSERT is its own transaction.
    this.guard(() => (paidBy === undefined ? this.putStmt.run(...row) : this.putPaid(row, paidBy)));
  }

  /** The executions `paidBy` paid for, in the order they were stored: the run key (execRunKey) and the process that ran it. */
  payments(paidBy: string): { key: string; pid: number }[] {
    return this.db.prepare('SELECT key, pid FROM exec_payments WHERE paid_by = ? ORDER BY rowid').all(paidBy) as { key: string; pid: number }[];
  }

  /** SQLite's damage codes (a page overwritten after open) as DamagedCacheError; anything else is rethrown. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (isSqliteDamage(err)) throw new DamagedCacheError(this.path, `${(err as { code: string }).code}: ${(err as Error).message}`);
      throw err;
    }
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM exec_runs').get() as { n: number }).n;
  }

  /** Writes every row to Parquet (outcomes as a list of strings) for DuckDB / pandas. */
  exportParquet(outPath: string): number {
    const rows = this.db
      .prepare('SELECT key, runner_version, outcomes, n_pass, wall_ms, created_at FROM exec_runs ORDER BY key')
      .all() as { key: string; runner_version: string; outcomes: string; n_pass: number; wall_ms: number; created_at: string }[];
    const table = tableFromArrays({
      key: rows.map((r) => r.key),
      runner_version: rows.map((r) => r.runner_version),
      outcomes_json: rows.map((r) => r.outcomes),
      n_tests: Int32Array.from(rows, (r) => (JSON.parse(r.outcomes) as string[]).length),
      n_pass: Int32Array.from(rows, (r) => r.n_pass),
      wall_ms: Float64Array.from(rows, (r) => r.wall_ms),
      created_at: rows.map((r) => r.created_at),
    });
    writeParquet(outPath, table);
    return rows.length;
  }

  close(): void {
    this.db.close();
  }
}

/** A stored outcomes column: a JSON list of strings, else null (the row is damaged). */
export function parseOutcomes(text: unknown): string[] | null {
  if (typeof text !== 'string') return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((o) => typeof o === 'string') ? v : null;
  } catch {
    return null;
  }
}

/** A stored judged column: a JSON list of 'parent' / 'child' as long as the outcomes; else undefined (an older row,
 * or one that does not read back: then the result carries no judged list, and a gate counting parent-judged
 * passes counts none, failing closed). */
function parseJudged(text: string | null, n: number): ('parent' | 'child')[] | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.length === n && v.every((j) => j === 'parent' || j === 'child') ? (v as ('parent' | 'child')[]) : undefined;
  } catch {
    return undefined;
  }
}
