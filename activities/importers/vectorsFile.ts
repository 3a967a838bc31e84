import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { tableFromIPC, type Table } from 'apache-arrow';
import { readParquet } from '../storage/parquet.ts';
import { StopError, EXIT_CODES } from '../faults.ts';

/**
 * Readers for vectors made elsewhere: Parquet or Arrow IPC with an `id` column and a `vector` column (a list or
 * fixed-size list of floats; what our own embeddings/<config>/*.parquet hold, and what pandas/polars write from a
 * list column), or a NumPy `.npy` matrix (float32 or float64, C order, rows × dims) with its ids in a text file, one
 * per line, in row order.
 */
export interface VectorRows {
  ids: string[];
  dims: number;
  /** Row-major ids.length × dims, as float64 so that a float64 file is checked before it is narrowed. */
  data: Float64Array;
  /** `file row N` for each row, for messages. */
  where: (i: number) => string;
}

const usage = (msg: string) => new StopError(msg, EXIT_CODES.usage);

const ID_COLUMNS = ['id', 'query_id', 'corpus_id', '_id'];
const VECTOR_COLUMNS = ['vector', 'embedding', 'embeddings', 'values'];

function fromTable(file: string, table: Table): VectorRows {
  const names = table.schema.fields.map((f) => f.name);
  const idAt = names.findIndex((n) => ID_COLUMNS.includes(n.toLowerCase()));
  const vecAt = names.findIndex((n) => VECTOR_COLUMNS.includes(n.toLowerCase()));
  if (idAt < 0 || vecAt < 0) throw usage(`${file}: expected an id column (${ID_COLUMNS.join(', ')}) and a vector column (${VECTOR_COLUMNS.join(', ')}); columns: ${names.join(', ')}`);
  const idCol = table.getChildAt(idAt)!;
  const vecCol = table.getChildAt(vecAt)!;
  const name = basename(file);
  const ids: string[] = [];
  const rows: ArrayLike<number>[] = [];
  let dims = -1;
  for (let i = 0; i < table.numRows; i++) {
    const v = vecCol.get(i) as { toArray(): ArrayLike<number> } | null;
    if (v === null) throw usage(`${file}: row ${i + 1} (${String(idCol.get(i))}) vector: null`);
    const arr = v.toArray();
    if (dims < 0) dims = arr.length;
    if (arr.length !== dims) throw usage(`${file}: row ${i + 1} (${String(idCol.get(i))}) vector: ${arr.length} values, row 1 has ${dims}`);
    ids.push(String(idCol.get(i)));
    rows.push(arr);
  }
  const data = new Float64Array(ids.length * Math.max(dims, 0));
  rows.forEach((r, i) => data.set(Array.from(r, Number), i * dims));
  return { ids, dims: Math.max(dims, 0), data, where: (i) => `${name} row ${i + 1}` };
}

/**
 * A `.npy` file (NumPy format 1.0-3.0: magic, version, header length, a Python dict literal with descr,
 * fortran_order and shape, then the raw array). Only what embeddings are saved as is accepted: 2-D, C order,
 * little-endian float32 or float64.
 */
export function readNpy(file: string, bytes: Uint8Array): { rows: number; dims: number; data: Float64Array } {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw usage(`${file}: not a .npy file (no \\x93NUMPY magic)`);
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = Buffer.from(bytes.subarray(start, start + headerLen)).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shape === undefined) throw usage(`${file}: unreadable .npy header ${JSON.stringify(header.trim())}`);
  const dimsList = shape.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (dimsList.length !== 2) throw usage(`${file}: shape (${shape}): expected a 2-D array (rows, dims)`);
  if (fortran !== 'False') throw usage(`${file}: fortran_order True: save it with np.ascontiguousarray(x) first`);
  const width = descr === '<f4' ? 4 : descr === '<f8' ? 8 : 0;
  if (!width) throw usage(`${file}: dtype ${descr}: expected float32 (<f4) or float64 (<f8)`);
  const [rows, dims] = dimsList;
  const off = start + headerLen;
  if (bytes.length - off !== rows * dims * width) throw usage(`${file}: ${bytes.length - off} data bytes, shape (${rows}, ${dims}) of ${descr} needs ${rows * dims * width}`);
  const data = new Float64Array(rows * dims);
  for (let i = 0; i < data.length; i++) data[i] = width === 4 ? view.getFloat32(off + 4 * i, true) : view.getFloat64(off + 8 * i, true);
  return { rows, dims, data };
}

/** Reads vectors from `file`; a `.npy` needs `idsFile` (one id per line, in row order). */
export function readVectorsFile(file: string, idsFile?: string): VectorRows {
  const ext = extname(file).toLowerCase();
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw usage(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (ext === '.npy') {
    if (!idsFile) throw usage(`${file}: a .npy file has no ids: pass --ids FILE (one id per line, in row order)`);
    let ids: string[];
    try {
      ids = readFileSync(idsFile, 'utf8').split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
    } catch (e) {
      throw usage(`${idsFile}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    const m = readNpy(file, bytes);
    if (ids.length !== m.rows) throw usage(`${idsFile}: ${ids.length} ids for the ${m.rows} rows of ${file}`);
    const name = basename(file);
    return { ids, dims: m.dims, data: m.data, where: (i) => `${name} row ${i + 1}` };
  }
  try {
    return fromTable(file, ext === '.parquet' ? readParquet(file) : tableFromIPC(bytes));
  } catch (e) {
    if (e instanceof StopError) throw e;
    throw usage(`${file}: not a readable ${ext === '.parquet' ? 'Parquet' : 'Arrow IPC'} file (${(e as Error).message})`);
  }
}
