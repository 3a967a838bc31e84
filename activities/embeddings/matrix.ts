import { readFileSync } from 'node:fs';
import { Field, FixedSizeList, Float32, makeData, Schema, Struct, Table, tableFromIPC, tableToIPC, Utf8, vectorFromArray, RecordBatch } from 'apache-arrow';
import { writeFileAtomic } from '../storage/atomic.ts';
import { writeParquet } from '../storage/parquet.ts';

export interface Matrix {
  ids: string[];
  dims: number;
  /** Row-major, ids.length × dims. */
  data: Float32Array;
}

/**
 * An Arrow table `id: Utf8, vector: FixedSizeList<Float32>[dims]` with string metadata on the schema (the
 * configuration, model version, text hash...). The same table goes to Arrow IPC (file format, what the
 * scoring step memory-maps) and to Parquet (what DuckDB, pandas, polars open).
 */
export function matrixTable(m: Matrix, metadata: Record<string, string>): Table {
  if (m.data.length !== m.ids.length * m.dims) throw new Error(`matrix: ${m.ids.length} ids × ${m.dims} dims != ${m.data.length} values`);
  const itemField = new Field('item', new Float32(), false);
  const vectorType = new FixedSizeList(m.dims, itemField);
  const values = makeData({ type: new Float32(), length: m.data.length, nullCount: 0, data: m.data });
  const vectorData = makeData({ type: vectorType, length: m.ids.length, nullCount: 0, child: values });
  const idVector = vectorFromArray(m.ids, new Utf8());
  const schema = new Schema([new Field('id', new Utf8(), false), new Field('vector', vectorType, false)], new Map(Object.entries(metadata)));
  const struct = makeData({ type: new Struct(schema.fields), length: m.ids.length, nullCount: 0, children: [idVector.data[0], vectorData] });
  return new Table(schema, [new RecordBatch(schema, struct)]);
}

/** Writes `<base>.arrow` (IPC file) and `<base>.parquet`, each atomically. */
export function writeMatrix(base: string, m: Matrix, metadata: Record<string, string>): { arrow: string; parquet: string } {
  const table = matrixTable(m, metadata);
  writeFileAtomic(`${base}.arrow`, tableToIPC(table, 'file'));
  writeParquet(`${base}.parquet`, table, metadata);
  return { arrow: `${base}.arrow`, parquet: `${base}.parquet` };
}

/** Reads an `.arrow` matrix back (ids, row-major floats, schema metadata). */
export function readMatrix(path: string): Matrix & { metadata: Record<string, string> } {
  const table = tableFromIPC(readFileSync(path));
  const ids = (table.getChild('id')!.toArray() as unknown as string[]).map(String);
  const vecType = table.schema.fields.find((f) => f.name === 'vector')!.type as FixedSizeList;
  const dims = vecType.listSize;
  const data = new Float32Array(ids.length * dims);
  let offset = 0;
  for (const chunk of table.getChild('vector')!.data) {
    const child = chunk.children[0];
    const vals = (child.values as Float32Array).subarray(child.offset + chunk.offset * dims, child.offset + (chunk.offset + chunk.length) * dims);
    data.set(vals, offset);
    offset += vals.length;
  }
  return { ids, dims, data, metadata: Object.fromEntries(table.schema.metadata) };
}
