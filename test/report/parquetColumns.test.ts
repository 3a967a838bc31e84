// The no-null column builders of activities/storage/parquet.ts against apache-arrow's own vectorFromArray: the
// same Arrow IPC bytes and the same Parquet file, on the values where a shortcut could differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Float64, Int32, Table, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { float64Column, int32Column, utf8Column, writeParquet } from '../../activities/storage/parquet.ts';

const STRINGS = [
  '', 'q_0001', 'mbpp_12:mutant:3', 'é', 'naïve – “quotes”', '日本語', '😀', 'a😀b', '\u0000nul', 'tab\tnew\nline',
  // lone surrogates, also where a high one ends a value and a low one starts the next (joined, they would pair up)
  'x\ud83d', '\ude00y', '\udfff', '\ud800', '',
];
const INTS = [0, 1, -1, 2147483647, -2147483648, 10, 100];
const FLOATS = [0, -0, 1.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 5e-324, 1.7976931348623157e308, 1 / 3];

function sameFiles(a: Table, b: Table): void {
  assert.ok(Buffer.from(tableToIPC(a, 'stream')).equals(Buffer.from(tableToIPC(b, 'stream'))), 'IPC bytes differ');
  const dir = mkdtempSync(join(tmpdir(), 'er-pqcols-'));
  writeParquet(join(dir, 'a.parquet'), a, { k: 'v' });
  writeParquet(join(dir, 'b.parquet'), b, { k: 'v' });
  assert.ok(readFileSync(join(dir, 'a.parquet')).equals(readFileSync(join(dir, 'b.parquet'))), 'Parquet bytes differ');
}

test('utf8Column, int32Column and float64Column give the bytes vectorFromArray gives', () => {
  const n = 3000; // more than one builder chunk, so the builder's capacity and padding differ from the values' length
  const s = Array.from({ length: n }, (_, i) => STRINGS[i % STRINGS.length] + (i % 7 === 0 ? String(i) : ''));
  const k = Array.from({ length: n }, (_, i) => INTS[i % INTS.length]);
  const f = Array.from({ length: n }, (_, i) => FLOATS[i % FLOATS.length]);
  sameFiles(
    new Table({ s: vectorFromArray(s, new Utf8()), k: vectorFromArray(k, new Int32()), f: vectorFromArray(f, new Float64()) }),
    new Table({ s: utf8Column(s), k: int32Column(k), f: float64Column(f) }),
  );
  const decoded = utf8Column(STRINGS).toArray() as unknown as string[];
  assert.deepEqual([...decoded], [...(vectorFromArray(STRINGS, new Utf8()).toArray() as unknown as string[])]);
});

test('each length from 0 to 9 rows gives the same bytes', () => {
  for (let n = 0; n < 10; n++) {
    const s = STRINGS.slice(0, n);
    const f = FLOATS.slice(0, n);
    sameFiles(new Table({ s: vectorFromArray(s, new Utf8()), f: vectorFromArray(f, new Float64()) }), new Table({ s: utf8Column(s), f: float64Column(f) }));
  }
});
