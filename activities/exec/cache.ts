import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { tableFromArrays } from 'apache-arrow';
import type { TestSuite } from '../../schemas/exec.ts';
import { writeParquet } from '../storage/parquet.ts';

export interface CachedRun {
  outcomes: string[];
  wall_ms: number;
}

/** sha256 over (runner version, code, suite, timeout), each part length-delimited so no two inputs collide. */
export function execCacheKey(runnerVersion: string, code: string, suite: TestSuite, timeoutS: number): string {
  const canonicalSuite =
    suite.kind === 'asserts'
      ? JSON.stringify(['asserts', suite.tests, suite.setup ?? null])
      : JSON.stringify(['check', suite.program, suite.entry_point]);
  const h = createHash('sha256');
  for (const part of [runnerVersion, code, canonicalSuite, String(timeoutS)]) {
    const b = Buffer.from(part, 'utf8');
    h.update(`${b.length}:`).update(b);
  }
  return h.digest('hex');
}

/**
 * The execution cache: one row per distinct (runner version, code, suite, timeout). SQLite in WAL mode so
 * several worker processes can read and write it at once.
 */
export class ExecCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string], { outcomes: string; wall_ms: number }>;
  private readonly putStmt: Database.Statement<[string, string, string, number, number]>;

  constructor(readonly path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS exec_cache (
      key TEXT PRIMARY KEY,
      runner_version TEXT NOT NULL,
      outcomes TEXT NOT NULL,
      n_pass INTEGER NOT NULL,
      wall_ms REAL NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    )`);
    this.getStmt = this.db.prepare('SELECT outcomes, wall_ms FROM exec_cache WHERE key = ?');
    this.putStmt = this.db.prepare(
      'INSERT OR IGNORE INTO exec_cache (key, runner_version, outcomes, n_pass, wall_ms) VALUES (?, ?, ?, ?, ?)',
    );
  }

  get(key: string): CachedRun | undefined {
    const row = this.getStmt.get(key);
    return row ? { outcomes: JSON.parse(row.outcomes) as string[], wall_ms: row.wall_ms } : undefined;
  }

  put(key: string, runnerVersion: string, run: CachedRun): void {
    const nPass = run.outcomes.filter((o) => o === 'pass').length;
    this.putStmt.run(key, runnerVersion, JSON.stringify(run.outcomes), nPass, run.wall_ms);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM exec_cache').get() as { n: number }).n;
  }

  /** Writes every row to Parquet (outcomes as a list of strings) for DuckDB / pandas. */
  exportParquet(outPath: string): number {
    const rows = this.db
      .prepare('SELECT key, runner_version, outcomes, n_pass, wall_ms, created_at FROM exec_cache ORDER BY key')
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
