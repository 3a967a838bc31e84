import { readFileSync } from 'node:fs';
import { Bool, Float64, Int32, Int64, Schema, Table, Utf8, makeData, makeVector, tableFromIPC, tableToIPC, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import * as pq from 'parquet-wasm/node';
import { writeFileAtomic } from './atomic.ts';
import { rewriteKeyValueMetadata } from './parquetFooter.ts';

/**
 * Parquet through parquet-wasm (Rust's arrow-rs writer compiled to wasm): the Arrow table is handed over as
 * IPC bytes, so every Arrow type we use (FixedSizeList vectors included) survives the trip and DuckDB,
 * pandas and polars read the file as written.
 */
export function writeParquet(path: string, table: Table, metadata: Record<string, string> = {}): void {
  const wasmTable = pq.Table.fromIPCStream(tableToIPC(table, 'stream'));
  let props = new pq.WriterPropertiesBuilder().setCompression(pq.Compression.ZSTD);
  if (Object.keys(metadata).length) props = props.setKeyValueMetadata(new Map(Object.entries(metadata)));
  // The writer orders the pairs, and the schema's metadata inside ARROW:schema, by Rust HashMaps seeded at random:
  // both are put in key order here (parquetFooter.ts), so the same rows and metadata always give the same bytes.
  const schema = arrowSchemaValue(table.schema);
  const bytes = rewriteKeyValueMetadata(pq.writeParquet(wasmTable, props.build()), (key, value) => (key === 'ARROW:schema' ? schema : value));
  writeFileAtomic(path, bytes);
}

/**
 * What arrow-rs stores under ARROW:schema (base64 of the schema's IPC message: continuation marker, length,
 * flatbuffer), encoded by arrow-js with the schema's metadata in key order: the first message of an empty stream.
 */
function arrowSchemaValue(schema: Schema): Buffer {
  const sorted = new Map([...schema.metadata].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const stream = Buffer.from(tableToIPC(new Table(new Schema(schema.fields, sorted)), 'stream'));
  return Buffer.from(stream.subarray(0, 8 + stream.readInt32LE(4)).toString('base64'));
}

/**
 * Columns without nulls, built straight from their buffers instead of through vectorFromArray's per-value
 * builder (a third of the time on a 96,800-row rankings file). The Arrow data is the same (nullable fields, no
 * validity bitmap, the same values), so the IPC bytes and hence the Parquet file are byte-identical
 * (test/report/parquetColumns.test.ts).
 */
export function utf8Column(values: readonly string[]): Vector<Utf8> {
  const valueOffsets = new Int32Array(values.length + 1);
  let end = 0;
  values.forEach((v, i) => {
    end += Buffer.byteLength(v, 'utf8');
    valueOffsets[i + 1] = end;
  });
  // Each value encoded on its own (as the builder's TextEncoder does: a lone surrogate is U+FFFD in both), never
  // joined first, where a lone high and low surrogate from neighbouring values would pair up.
  const data = new Uint8Array(end);
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  values.forEach((v, i) => bytes.write(v, valueOffsets[i], 'utf8'));
  return makeVector(makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets, data }));
}

export function int32Column(values: ArrayLike<number>): Vector<Int32> {
  return makeVector(makeData({ type: new Int32(), length: values.length, nullCount: 0, data: Int32Array.from(values) }));
}

export function float64Column(values: ArrayLike<number>): Vector<Float64> {
  return makeVector(makeData({ type: new Float64(), length: values.length, nullCount: 0, data: Float64Array.from(values) }));
}

export function readParquet(path: string): Table {
  const wasmTable = pq.readParquet(readFileSync(path));
  return tableFromIPC(wasmTable.intoIPCStream());
}

/**
 * Rows to an Arrow table with explicit column types, in the rows' own key order: integers (token counts,
 * attempt numbers) as Int64, other numbers Float64, booleans Bool, the rest Utf8 (objects as JSON).
 * `floatColumns` are Float64 whatever their values, so a column whose values happen to be whole keeps one
 * type across files. (`tableFromJSON` would turn every count into a double and reorder the columns.)
 */
export function tableFromRows(rows: readonly Record<string, unknown>[], floatColumns: readonly string[] = []): Table {
  const floats = new Set(floatColumns);
  const names = Object.keys(rows[0]);
  const cols: Record<string, Vector> = {};
  for (const name of names) {
    const vals = rows.map((r) => (r[name] === undefined ? null : r[name]));
    const present = vals.filter((v) => v !== null);
    let type: DataType;
    let data: unknown[] = vals;
    if (floats.has(name)) type = new Float64();
    else if (present.length && present.every((v) => typeof v === 'number' && Number.isInteger(v))) {
      type = new Int64();
      data = vals.map((v) => (v === null ? null : BigInt(v as number)));
    } else if (present.length && present.every((v) => typeof v === 'number')) type = new Float64();
    else if (present.length && present.every((v) => typeof v === 'boolean')) type = new Bool();
    else {
      type = new Utf8();
      data = vals.map((v) => (v === null ? null : typeof v === 'string' ? v : JSON.stringify(v)));
    }
    cols[name] = vectorFromArray(data, type);
  }
  return new Table(cols);
}
