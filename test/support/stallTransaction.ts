/**
 * A kill inside a SQLite transaction, without a hook in the code under test: a trigger in the database file stalls
 * the writer's transaction after its n-th insert into a table (an endless cross join, evaluated by the writer's own
 * connection), and `writerBusy` tells, from another connection, that a transaction holds the write lock. A test
 * arms the stall, waits until the writer is inside, SIGKILLs its process, then checks what was committed.
 */
import Database from 'better-sqlite3';

/** After `rows` inserts into `table` (counted over the whole table), the inserting transaction never returns. */
export function armStall(path: string, table: string, rows: number): void {
  const db = new Database(path);
  try {
    db.exec(`CREATE TABLE stall_rows (v INTEGER);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO stall_rows SELECT i FROM n;
             CREATE TRIGGER stall_insert AFTER INSERT ON ${table} WHEN (SELECT count(*) FROM ${table}) >= ${rows}
             BEGIN SELECT count(*) FROM stall_rows a, stall_rows b, stall_rows c, stall_rows d; END;`);
  } finally {
    db.close();
  }
}

export function disarmStall(path: string): void {
  const db = new Database(path);
  try {
    db.exec('DROP TRIGGER stall_insert; DROP TABLE stall_rows;');
  } finally {
    db.close();
  }
}

/** Whether another connection holds the file's write lock (a write transaction is open in it). */
export function writerBusy(path: string): boolean {
  const db = new Database(path, { timeout: 0 });
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return false;
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw e;
  } finally {
    db.close();
  }
}
