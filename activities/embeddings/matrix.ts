import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DamagedRunFileError, differsFromHash } from '../faults.ts';
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

/** The metadata key that holds matrixDigest: a file carries the hash of its own content. */
export const MATRIX_DIGEST_KEY = 'content_sha256';

/** sha256 over the ids (each length-prefixed) and the float bytes: what a matrix's readers rank by. */
export function matrixDigest(m: Matrix): string {
  const h = createHash('sha256').update(`${m.ids.length}x${m.dims}\n`);
  for (const id of m.ids) h.update(`${Buffer.byteLength(id)}:`).update(id);
  return h.update(new Uint8Array(m.data.buffer, m.data.byteOffset, m.data.byteLength)).digest('hex');
}

/**
 * Writes `<base>.arrow` (IPC file) and `<base>.parquet`, each atomically, with their content's digest in the
 * metadata (readMatrix checks it: a flipped byte in a vector must never become a ranking).
 */
export function writeMatrix(base: string, m: Matrix, metadata: Record<string, string>): { arrow: string; parquet: string } {
  const table = matrixTable(m, { ...metadata, [MATRIX_DIGEST_KEY]: matrixDigest(m) });
  writeFileAtomic(`${base}.arrow`, tableToIPC(table, 'file'));
  writeParquet(`${base}.parquet`, table, Object.fromEntries(table.schema.metadata));
  return { arrow: `${base}.arrow`, parquet: `${base}.parquet` };
}

/**
 * Reads an `.arrow` matrix back (ids, row-major floats, schema metadata), checked against the digest it was written
 * with (files written before the digest have none and are read as they are). A file Arrow cannot read at all, or
 * whose content differs from its digest, is a DamagedRunFileError.
 */
export function readMatrix(path: string): Matrix & { metadata: Record<string, string> } {
  const fix = 'write it again: `execretrieval embed` for its configuration re-writes it from the embedding cache (nothing is paid twice); an imported one, import it again';
  const bytes = readFileSync(path);
  let m: Matrix & { metadata: Record<string, string> };
  try {
    m = decodeMatrix(bytes);
  } catch (err) {
    throw new DamagedRunFileError(path, `not readable as an Arrow matrix (${(err as Error).message.split('\n')[0]})`, fix);
  }
  const want = m.metadata[MATRIX_DIGEST_KEY];
  if (want !== undefined && matrixDigest(m) !== want) throw new DamagedRunFileError(path, differsFromHash('its content (ids and vectors)'), fix);
  return m;
}

function decodeMatrix(bytes: Uint8Array): Matrix & { metadata: Record<string, string> } {
  const table = tableFromIPC(bytes);
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
  if (offset !== data.length) throw new Error(`${offset} values for ${ids.length} ids × ${dims} dims`);
  return { ids, dims, data, metadata: Object.fromEntries(table.schema.metadata) };
}
