// The same rows and metadata give the same Parquet bytes on every write: parquet-wasm orders the key-value pairs,
// and the schema metadata inside ARROW:schema, by Rust HashMaps seeded at random per map (5 distinct files in 20
// writes before activities/storage/parquetFooter.ts). Readers still see every pair: arrow-rs here, pyarrow outside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Field, Float64, Schema, Table, Utf8, makeData, RecordBatch, Struct } from 'apache-arrow';
import { float64Column, readParquet, utf8Column, writeParquet } from '../../activities/storage/parquet.ts';
import { rewriteKeyValueMetadata } from '../../activities/storage/parquetFooter.ts';
import { projectRoot } from '../../activities/paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'er-pqbytes-'));
const META = { tie_key: 'sha256', config_id: 'bm25', zeta: 'last', alpha: '0.05', 'Ünicode': 'é😀', empty: '' };
const SCHEMA_META = new Map([['model', 'm'], ['dims', '2'], ['content_sha256', 'ab'], ['a', '1'], ['b', '2'], ['c', '3']]);

function table(): Table {
  const n = 2000;
  const q = utf8Column(Array.from({ length: n }, (_, i) => `q${i % 97}`));
  const s = float64Column(Array.from({ length: n }, (_, i) => Math.sin(i)));
  const schema = new Schema([new Field('q', new Utf8(), true), new Field('s', new Float64(), true)], SCHEMA_META);
  const data = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children: [q.data[0], s.data[0]] });
  return new Table([new RecordBatch(schema, data)]);
}
const digest = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

test('twenty writes of the same table and metadata are one file, its pairs in key order', () => {
  const files = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const f = join(dir, `t${i}.parquet`);
    writeParquet(f, table(), META);
    files.add(digest(f));
  }
  assert.equal(files.size, 1);
  const f = join(dir, 't0.parquet');
  const back = readParquet(f);
  assert.equal(back.numRows, 2000);
  assert.deepEqual([...back.getChild('q')!.toArray()].slice(0, 3), ['q0', 'q1', 'q2']);
  // arrow-rs merges the file's pairs and the schema's own into the schema it reads back.
  const meta = Object.fromEntries(back.schema.metadata);
  for (const [k, v] of [...Object.entries(META), ...SCHEMA_META]) assert.equal(meta[k], v, k);
  // The pairs lie in the footer in key order.
  const bytes = readFileSync(f);
  const keys = ['ARROW:schema', ...Object.keys(META)].sort();
  const at = keys.map((k) => bytes.lastIndexOf(Buffer.from(k)));
  assert.deepEqual([...at].sort((a, b) => a - b), at, `footer order ${keys.join(',')}`);
  // The rewrite is idempotent: a file already in order comes back byte for byte.
  assert.ok(Buffer.from(rewriteKeyValueMetadata(bytes)).equals(bytes));
});

test('pyarrow reads what was written: rows, and the file\'s pairs as its schema metadata', () => {
  const f = join(dir, 'py.parquet');
  writeParquet(f, table(), META);
  const py = join(projectRoot(), '.venv', 'bin', 'python');
  const out = execFileSync(py, ['-c', `
import json, sys, pyarrow.parquet as pq
pf = pq.ParquetFile(sys.argv[1]); t = pf.read()
kv = {k.decode(): v.decode() for k, v in pf.metadata.metadata.items() if k != b'ARROW:schema'}
sm = {k.decode(): v.decode() for k, v in (t.schema.metadata or {}).items()}
print(json.dumps({"rows": t.num_rows, "q": t.column("q")[5].as_py(), "kv": kv, "schema": sm}))
`, f], { encoding: 'utf8' });
  const got = JSON.parse(out) as { rows: number; q: string; kv: Record<string, string>; schema: Record<string, string> };
  assert.equal(got.rows, 2000);
  assert.equal(got.q, 'q5');
  assert.deepEqual(got.kv, META);
  assert.deepEqual(got.schema, META); // pyarrow's schema metadata is the file's pairs (writeMatrix passes its own as pairs)
});

test('a table without metadata, and a file that is not Parquet', () => {
  const f = join(dir, 'plain.parquet');
  const plain = new Table({ q: utf8Column(['a', 'b']) });
  writeParquet(f, plain);
  const d = digest(f);
  writeParquet(f, plain);
  assert.equal(digest(f), d);
  assert.deepEqual([...readParquet(f).getChild('q')!.toArray()], ['a', 'b']);
  assert.throws(() => rewriteKeyValueMetadata(Buffer.from('not a parquet file at all')), /not a Parquet file/);
});
