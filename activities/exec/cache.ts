import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { tableFromArrays } from 'apache-arrow';
import type { TestSuite } from '../../schemas/exec.ts';
import { DamagedCacheError, isSqliteDamage } from '../faults.ts';
import { openCacheDb } from '../storage/sqliteChecked.ts';
import { migrateChecksums, nowStamp, rowChecksum, rowVerifies, type StoredRow } from '../storage/rowChecksum.ts';
import { writeParquet } from '../storage/parquet.ts';
import { callsHarnessVersion } from './callsBuild.ts';

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
      : suite.kind === 'check'
        ? JSON.stringify(['check', suite.program, suite.entry_point])
        : // The harness in the child (not a .py file, so not in runnerVersion) decides what comes back.
          JSON.stringify(['calls', suite.language, suite.entry_point, suite.calls, callsHarnessVersion()]);
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
 * A run answers only a lookup under its own timeout (issue 36): the limits are part of what decides a verdict, and
 * the code can read its own (its CPU rlimit derives from it), so a run that passed under one limit says nothing
 * about another (a candidate accepted under `--timeout 2` was rejected when run fresh under the default). The
 * runner version (every .py file of infra/runner: judge, candidate runner, layers) and the suite (whose kind and
 * language are in its canonical form) are in the content key.
 *
 * Damage is never an answer: the file is checked on open (`quick_check`); a row that SQLite cannot read back throws
 * DamagedCacheError (file + repair command), which the oracle returns as an `infra_error` result rather than a
 * verdict; a row that reads back but fails its checksum (bit-rot inside the row: a FAIL turned into pass) is a
 * miss, counted and reported in one line, executed again and replaced.
 */
/**
 * The columns put writes, in insert order: every one of them is covered by the row's checksum (rowChecksum over the
 * row object put inserts; verified over `SELECT *` on read), so a column added here is checksummed by construction.
 */
export const EXEC_COLUMNS = ['key', 'content_key', 'timeout_s', 'runner_version', 'outcomes', 'n_pass', 'timed_out', 'wall_ms', 'cpu_ms', 'judged', 'created_at'] as const;
type RunRow = Record<(typeof EXEC_COLUMNS)[number], string | number | null> & { checksum: string };
type StoredRun = { outcomes: unknown; wall_ms: unknown; cpu_ms: unknown; judged: unknown; timeout_s: number; timed_out: number } & StoredRow;

/** The older validity test (before checksums): what a row must read back as to be migrated with a checksum. */
export function execRowReadable(r: StoredRow): boolean {
  return (
    typeof r.key === 'string' &&
    typeof r.content_key === 'string' &&
    typeof r.timeout_s === 'number' &&
    typeof r.wall_ms === 'number' &&
    (r.cpu_ms === null || r.cpu_ms === undefined || typeof r.cpu_ms === 'number') &&
    parseOutcomes(r.outcomes) !== null
  );
}

/** A stored row that is a result: its checksum matches its content and its content reads back. */
export const execRowVerifies = (r: StoredRow): boolean => rowVerifies(r) && execRowReadable(r);

export class ExecCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, number], StoredRun>;
  private readonly byKeyStmt: Database.Statement<[string], StoredRow>;
  private readonly putStmt: Database.Statement<[RunRow]>;
  private readonly payStmt: Database.Statement<[string, string, number]>;
  private readonly paidStmt: Database.Statement<[string, string]>;
  /** The verdict and, with a payer, its payment: one transaction, built once (put runs once per execution). */
  private readonly putTx: (row: RunRow, paidBy: string | undefined) => void;
  /** Rows that failed their checksum in this process (each one a miss, re-run and replaced). */
  damagedRows = 0;

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
    // The checksum came later still: rows of an older file that read back valid are checksummed once, now.
    guardDamage(path, () => migrateChecksums(this.db, 'exec_runs', ['key'], execRowReadable));
    // One row per execution a payer (ExecRequest.paid_by) ran, written in the verdict's own transaction: a
    // process killed at any instant has either stored the verdict and its payment, or neither. A log line
    // written after the verdict missed the execution when a SIGKILL fell between the two.
    this.db.exec(`CREATE TABLE IF NOT EXISTS exec_payments (
      key TEXT NOT NULL,
      paid_by TEXT NOT NULL,
      pid INTEGER NOT NULL,
      at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX IF NOT EXISTS exec_payments_payer_key ON exec_payments (paid_by, key)`);
    this.payStmt = this.db.prepare('INSERT INTO exec_payments (key, paid_by, pid) VALUES (?, ?, ?)');
    this.paidStmt = this.db.prepare('SELECT 1 FROM exec_payments WHERE paid_by = ? AND key = ? LIMIT 1');
    // The run under exactly this timeout (the class comment): one answer for one state.
    this.getStmt = this.db.prepare('SELECT * FROM exec_runs WHERE content_key = ? AND timeout_s = ?');
    this.byKeyStmt = this.db.prepare('SELECT * FROM exec_runs WHERE key = ?');
    // OR REPLACE, used only when the row under this key is absent or fails its checksum (putTx): a sound row is
    // never overwritten, so the first verdict stored stays the answer.
    this.putStmt = this.db.prepare(
      `INSERT OR REPLACE INTO exec_runs (${EXEC_COLUMNS.join(', ')}, checksum) VALUES (${EXEC_COLUMNS.map((c) => `@${c}`).join(', ')}, @checksum)`,
    );
    // A damaged row of the same run is removed, not left beside the new one (issue 37: a key whose digit was
    // changed is a row of its own, and `cache verify` kept failing on it); found by content, so a changed key is too.
    const sameRun = this.db.prepare<[string, number], StoredRow>('SELECT * FROM exec_runs WHERE content_key = ? AND timeout_s = ?');
    const dropStmt = this.db.prepare<[unknown]>('DELETE FROM exec_runs WHERE key = ?');
    const tx = this.db.transaction((row: RunRow, paidBy: string | undefined) => {
      const old = this.byKeyStmt.get(row.key as string);
      if (!old || !execRowVerifies(old)) {
        for (const r of sameRun.all(row.content_key as string, row.timeout_s as number)) if (r.key !== row.key && !execRowVerifies(r)) dropStmt.run(r.key);
        this.putStmt.run(row);
      }
      if (paidBy !== undefined) this.payStmt.run(row.key as string, paidBy, process.pid);
    });
    // Immediate: the read and the write are one step, with no other writer between them.
    this.putTx = (row, paidBy) => tx.immediate(row, paidBy);
  }

  /** The stored run of (content, timeoutS), if any. */
  get(contentKey: string, timeoutS: number): CachedRun | undefined {
    const rows = this.guard(() => this.getStmt.all(contentKey, timeoutS));
    for (const row of rows) {
      // A row that fails its checksum is a miss, never an answer: the run is executed again and replaces it.
      if (!execRowVerifies(row)) {
        this.noteDamaged();
        continue;
      }
      const outcomes = parseOutcomes(row.outcomes)!;
      const wall_ms = row.wall_ms as number;
      const cpu_ms = row.cpu_ms as number | null;
      const out: CachedRun = cpu_ms === null || cpu_ms === undefined ? { outcomes, wall_ms } : { outcomes, wall_ms, cpu_ms };
      const judged = parseJudged(row.judged, outcomes.length);
      if (judged) out.judged = judged;
      return out;
    }
    return undefined;
  }

  /** Stores a run; with `paidBy` (the run just executed for that payer) also its payment, in one transaction. */
  put(contentKey: string, timeoutS: number, runnerVersion: string, run: CachedRun, paidBy?: string): void {
    const content = {
      key: execRunKey(contentKey, timeoutS),
      content_key: contentKey,
      timeout_s: timeoutS,
      runner_version: runnerVersion,
      outcomes: JSON.stringify(run.outcomes),
      n_pass: run.outcomes.filter((o) => o === 'pass').length,
      timed_out: run.outcomes.includes('TIMEOUT') ? 1 : 0,
      wall_ms: run.wall_ms,
      cpu_ms: run.cpu_ms ?? null,
      judged: run.judged ? JSON.stringify(run.judged) : null,
      created_at: nowStamp(),
    } satisfies Omit<RunRow, 'checksum'>;
    const row: RunRow = { ...content, checksum: rowChecksum(content) };
    this.guard(() => this.putTx(row, paidBy));
  }

  /** One line on the first row that fails its checksum (the rest are counted): a re-run is never silent. */
  private noteDamaged(): void {
    this.damagedRows += 1;
    if (this.damagedRows === 1) {
      process.stderr.write(`${this.path}: a cached execution failed its checksum: it is executed again and replaced, never used (\`execretrieval cache verify\` counts them)\n`);
    }
  }

  /** The executions `paidBy` paid for, in the order they were stored: the run key (execRunKey) and the process that ran it. */
  /** Whether this cache holds a payment by `paidBy` for run key `key` (execRunKey): that payer ran it here once. */
  paidHere(key: string, paidBy: string): boolean {
    return this.guard(() => this.paidStmt.get(paidBy, key) !== undefined);
  }

  payments(paidBy: string): { key: string; pid: number }[] {
    return this.db.prepare('SELECT key, pid FROM exec_payments WHERE paid_by = ? ORDER BY rowid').all(paidBy) as { key: string; pid: number }[];
  }

  /** SQLite's damage codes (a page overwritten after open) as DamagedCacheError; anything else is rethrown. */
  private guard<T>(fn: () => T): T {
    return guardDamage(this.path, fn);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM exec_runs').get() as { n: number }).n;
  }

  /** Writes every row to Parquet (outcomes as a list of strings) for DuckDB / pandas. */
  /**
   * Writes every row that verifies to Parquet; a row that fails its checksum is not a result and is skipped (an
   * export must not hand another tool a FAIL turned into pass). Returns how many rows were written and skipped.
   */
  exportParquet(outPath: string): { written: number; skipped: number } {
    const stored = this.guard(() => this.db.prepare('SELECT * FROM exec_runs ORDER BY key').all() as StoredRow[]);
    const rows = stored.filter(execRowVerifies) as unknown as { key: string; runner_version: string; outcomes: string; n_pass: number; wall_ms: number; created_at: string }[];
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
    return { written: rows.length, skipped: stored.length - rows.length };
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

/** Runs fn; SQLite's damage codes become DamagedCacheError naming the file, anything else is rethrown. */
export function guardDamage<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isSqliteDamage(err)) throw new DamagedCacheError(path, `${(err as { code: string }).code}: ${(err as Error).message}`);
    throw err;
  }
}

/** A stored judged column: a JSON list of 'parent' / 'child' as long as the outcomes; else undefined (an older row,
 * or one that does not read back: then the result carries no judged list, and a gate counting parent-judged
 * passes counts none, failing closed). */
function parseJudged(text: unknown, n: number): ('parent' | 'child')[] | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.length === n && v.every((j) => j === 'parent' || j === 'child') ? (v as ('parent' | 'child')[]) : undefined;
  } catch {
    return undefined;
  }
}
