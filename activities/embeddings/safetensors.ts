import { readFileSync } from 'node:fs';

export interface RawTensor {
  dtype: string;
  shape: number[];
  data: Float32Array | Int8Array | BigInt64Array | Int32Array | Uint8Array;
}

const CTORS = { F32: Float32Array, I8: Int8Array, I64: BigInt64Array, I32: Int32Array, U8: Uint8Array } as const;

/**
 * Reads a .safetensors file: 8-byte little-endian header length, a JSON header {name: {dtype, shape,
 * data_offsets}}, then the raw tensors. Hand-written because it is 20 lines and the npm packages for it
 * are either torch-bound or unmaintained. Data is copied so it is aligned for the typed array.
 */
export function readSafetensors(path: string): Map<string, RawTensor> {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8')) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const base = 8 + n;
  const out = new Map<string, RawTensor>();
  for (const [name, meta] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const Ctor = CTORS[meta.dtype as keyof typeof CTORS];
    if (!Ctor) throw new Error(`${path}: tensor ${name}: unsupported dtype ${meta.dtype}`);
    const [start, end] = meta.data_offsets;
    const bytes = new Uint8Array(buf.subarray(base + start, base + end)); // copy: aligned, independent of buf
    out.set(name, { dtype: meta.dtype, shape: meta.shape, data: new Ctor(bytes.buffer, 0, (end - start) / Ctor.BYTES_PER_ELEMENT) });
  }
  return out;
}
