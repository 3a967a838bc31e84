/**
 * The checksum every cache row carries over its own content (issue 26: bit-rot inside a row must never become a
 * result). It covers every column of the row but `checksum` itself, so a column added later is covered by
 * construction: the cache computes it over the row object it inserts and verifies it over the row it reads back
 * (`SELECT *`). NULL columns are left out, so a column added later (NULL in older rows) leaves their checksums
 * valid. Columns are taken in name order with a type tag and a length prefix: no two rows collide by shuffling
 * bytes between columns or by a number turning into the same text.
 */
import { createHash } from 'node:crypto';

export type CellValue = string | number | bigint | Buffer | null | undefined;
export type StoredRow = Record<string, unknown>;

/** The column that holds the checksum; never part of what it covers. */
export const CHECKSUM_COLUMN = 'checksum';

export function rowChecksum(row: Readonly<Record<string, CellValue | unknown>>): string {
  // One JSON text of [name, tag, value] triples (JSON quoting keeps the parts apart), blobs hashed after it in
  // the same order with their lengths in the text: one hash update for the common row, no per-column buffers.
  const parts: (string | number)[] = [];
  const blobs: Buffer[] = [];
  for (const name of Object.keys(row).sort()) {
    const v = row[name];
    if (name === CHECKSUM_COLUMN || v === null || v === undefined) continue;
    if (typeof v === 'string') parts.push(name, 's', v);
    // A number read back from SQLite is the same double that was bound (REAL and INTEGER columns both round-trip).
    else if (typeof v === 'number' || typeof v === 'bigint') parts.push(name, 'n', String(v));
    else if (Buffer.isBuffer(v)) {
      parts.push(name, 'b', v.length);
      blobs.push(v);
    } else return `unhashable:${name}`; // never equal to a stored sha256: such a row fails its checksum
  }
  const h = createHash('sha256').update(JSON.stringify(parts));
  for (const b of blobs) h.update(b);
  return h.digest('hex');
}

/** true when the row's stored checksum matches its content. A row without one (NULL) never verifies. */
export function rowVerifies(row: StoredRow): boolean {
  const stored = row[CHECKSUM_COLUMN];
  return typeof stored === 'string' && stored === rowChecksum(row);
}

/** SQLite's own timestamp format, set by the cache (not by a column DEFAULT) so the checksum can cover it. */
export const nowStamp = (): string => new Date().toISOString();

/**
 * Adds the checksum column to a cache file made before it, once (the column's absence is the signal, checked again
 * inside an immediate transaction, so two workers opening the old file at once migrate it once). Rows that pass
 * the cache's older validity test (`valid`) get their checksum now; the others stay NULL and are misses from then
 * on (recomputed and replaced, dropped by repair). Damage older than the migration that still looks valid cannot
 * be told apart from a good row: that is the one trust this step takes on (docs/faults.md).
 */
export function migrateChecksums(
  db: import('better-sqlite3').Database,
  table: string,
  keyColumns: readonly string[],
  valid: (row: StoredRow) => boolean,
): { migrated: number; left_unchecked: number } | null {
  const has = () => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === CHECKSUM_COLUMN);
  if (has()) return null;
  return db.transaction(() => {
    if (has()) return null;
    db.exec(`ALTER TABLE ${table} ADD COLUMN ${CHECKSUM_COLUMN} TEXT`);
    const updates: [string, unknown[]][] = [];
    let bad = 0;
    for (const row of db.prepare(`SELECT * FROM ${table}`).iterate() as IterableIterator<StoredRow>) {
      if (valid(row)) updates.push([rowChecksum(row), keyColumns.map((k) => row[k])]);
      else bad += 1;
    }
    const set = db.prepare(`UPDATE ${table} SET ${CHECKSUM_COLUMN} = ? WHERE ${keyColumns.map((k) => `${k} = ?`).join(' AND ')}`);
    for (const [sum, key] of updates) set.run(sum, ...key);
    return { migrated: updates.length, left_unchecked: bad };
  }).immediate();
}
