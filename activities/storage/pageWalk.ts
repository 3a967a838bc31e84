/**
 * Reads every record off the b-tree pages of a SQLite file without going through its b-trees: the part of the
 * sqlite3 shell's `.recover` that `cache repair` needs. When an interior page (the table's root, say) is
 * overwritten, SQLite cannot reach the leaves below it, yet those leaves are intact; this walk visits every page
 * of the file, decodes the cells of table leaves (rowid tables) and of index pages (a WITHOUT ROWID table's rows
 * live there, in interior pages too), follows overflow chains, and returns the records. Which table a record
 * came from is not known here: the caller keeps only records that decode into a row of its table whose checksum
 * verifies (rowChecksum), so an index entry, a half-overwritten cell or a stray page never becomes a row.
 * Pages on the freelist are skipped (their cells are rows deleted or replaced since), as far as the freelist reads.
 * Format reference: https://www.sqlite.org/fileformat2.html (b-tree pages, cell payload, record format).
 */
import { readFileSync } from 'node:fs';

export interface WalkedRecord {
  /** The record's values in column order (a row written before an ALTER TABLE ADD COLUMN has fewer). */
  values: unknown[];
  page: number;
}

const TABLE_LEAF = 0x0d;
const INDEX_LEAF = 0x0a;
const INDEX_INTERIOR = 0x02;

class Corrupt extends Error {}

function varint(buf: Buffer, at: number, end: number): [number, number] {
  let v = 0n;
  for (let i = 0; i < 9; i++) {
    if (at + i >= end) throw new Corrupt('varint past end');
    const b = buf[at + i];
    if (i === 8) return [Number((v << 8n) | BigInt(b)), 9];
    v = (v << 7n) | BigInt(b & 0x7f);
    if (!(b & 0x80)) return [Number(v), i + 1];
  }
  throw new Corrupt('unreachable');
}

/** A record (header of serial types, then the values) as JS values: NULL, number, text, blob. */
export function decodeRecord(p: Buffer): unknown[] {
  const [hdrLen, n0] = varint(p, 0, p.length);
  if (hdrLen < n0 || hdrLen > p.length) throw new Corrupt('record header');
  const types: number[] = [];
  for (let at = n0; at < hdrLen; ) {
    const [t, n] = varint(p, at, hdrLen);
    types.push(t);
    at += n;
  }
  const out: unknown[] = [];
  let at = hdrLen;
  const take = (len: number) => {
    if (at + len > p.length) throw new Corrupt('record body');
    const s = p.subarray(at, at + len);
    at += len;
    return s;
  };
  for (const t of types) {
    if (t === 0) out.push(null);
    else if (t >= 1 && t <= 6) {
      const len = [0, 1, 2, 3, 4, 6, 8][t];
      const b = take(len);
      if (len === 8) out.push(Number(b.readBigInt64BE(0)));
      else out.push(b.readIntBE(0, len));
    } else if (t === 7) out.push(take(8).readDoubleBE(0));
    else if (t === 8) out.push(0);
    else if (t === 9) out.push(1);
    else if (t >= 12 && t % 2 === 0) out.push(Buffer.from(take((t - 12) / 2)));
    else if (t >= 13) out.push(take((t - 13) / 2).toString('utf8'));
    else throw new Corrupt(`serial type ${t}`);
  }
  if (at !== p.length) throw new Corrupt('record length');
  return out;
}

/** Every record on every b-tree page of the file at `path` (unreadable cells are skipped). */
export function walkRecords(path: string): WalkedRecord[] {
  const buf = readFileSync(path);
  // The header may itself be damaged: fall back to SQLite's default page size.
  const magic = buf.subarray(0, 16).toString('latin1') === 'SQLite format 3\u0000';
  let pageSize = magic ? buf.readUInt16BE(16) : 4096;
  if (pageSize === 1) pageSize = 65536;
  if (pageSize < 512 || pageSize > 65536 || pageSize & (pageSize - 1)) pageSize = 4096;
  const reserved = magic ? buf[20] : 0;
  const usable = pageSize - reserved;
  const nPages = Math.floor(buf.length / pageSize);
  const pageAt = (n: number) => (n - 1) * pageSize;

  const free = new Set<number>();
  if (magic) {
    // Trunk pages: next trunk, leaf count, leaf page numbers. A damaged trunk ends the list there.
    let trunk = buf.readUInt32BE(32);
    const seen = new Set<number>();
    while (trunk > 0 && trunk <= nPages && !seen.has(trunk)) {
      seen.add(trunk);
      free.add(trunk);
      const b = pageAt(trunk);
      const count = buf.readUInt32BE(b + 4);
      if (count > (usable - 8) / 4) break;
      for (let i = 0; i < count; i++) free.add(buf.readUInt32BE(b + 8 + 4 * i));
      trunk = buf.readUInt32BE(b);
    }
  }

  const maxLocalTable = usable - 35;
  const maxLocalIndex = Math.floor(((usable - 12) * 64) / 255) - 23;
  const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;

  /** The payload of size `size` starting at `at` on page `page`, following its overflow chain. */
  const payload = (at: number, size: number, maxLocal: number, pageEnd: number): Buffer => {
    if (size <= maxLocal) {
      if (at + size > pageEnd) throw new Corrupt('cell past page');
      return buf.subarray(at, at + size);
    }
    const k = minLocal + ((size - minLocal) % (usable - 4));
    const local = k <= maxLocal ? k : minLocal;
    if (at + local + 4 > pageEnd) throw new Corrupt('cell past page');
    const parts = [buf.subarray(at, at + local)];
    let left = size - local;
    let next = buf.readUInt32BE(at + local);
    const seen = new Set<number>();
    while (left > 0) {
      if (next < 1 || next > nPages || seen.has(next)) throw new Corrupt('overflow chain');
      seen.add(next);
      const b = pageAt(next);
      const n = Math.min(left, usable - 4);
      parts.push(buf.subarray(b + 4, b + 4 + n));
      left -= n;
      next = buf.readUInt32BE(b);
    }
    return Buffer.concat(parts);
  };

  const out: WalkedRecord[] = [];
  for (let page = 1; page <= nPages; page++) {
    if (free.has(page)) continue;
    const base = pageAt(page);
    const hdr = base + (page === 1 ? 100 : 0);
    const type = buf[hdr];
    if (type !== TABLE_LEAF && type !== INDEX_LEAF && type !== INDEX_INTERIOR) continue;
    const headerSize = type === INDEX_INTERIOR ? 12 : 8;
    const nCells = buf.readUInt16BE(hdr + 3);
    const pageEnd = base + usable;
    if (hdr + headerSize + 2 * nCells > pageEnd) continue;
    for (let i = 0; i < nCells; i++) {
      try {
        const ptr = buf.readUInt16BE(hdr + headerSize + 2 * i);
        if (ptr < headerSize || ptr >= usable) continue;
        let at = base + ptr;
        if (type === INDEX_INTERIOR) at += 4; // left child page number
        const [size, n] = varint(buf, at, pageEnd);
        at += n;
        if (type === TABLE_LEAF) at += varint(buf, at, pageEnd)[1]; // the rowid
        out.push({ values: decodeRecord(payload(at, size, type === TABLE_LEAF ? maxLocalTable : maxLocalIndex, pageEnd)), page });
      } catch (err) {
        if (!(err instanceof Corrupt) && !(err instanceof RangeError)) throw err;
      }
    }
  }
  return out;
}
