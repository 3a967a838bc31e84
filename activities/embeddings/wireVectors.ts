/** Vectors as they travel through Temporal payloads: one base64 string of float32 rows (JSON numbers would be ~4x larger). */
export function encodeVectors(rows: readonly Float32Array[]): string {
  const dims = rows[0]?.length ?? 0;
  const all = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => all.set(r, i * dims));
  return Buffer.from(all.buffer, all.byteOffset, all.byteLength).toString('base64');
}

/** The rows of `encodeVectors`; throws when the bytes are not `n` rows of `dims` float32 values. */
export function decodeVectors(b64: string, dims: number, n: number): Float32Array[] {
  const buf = Buffer.from(b64, 'base64');
  if (buf.byteLength !== n * dims * 4) throw new Error(`embedding send result: ${buf.byteLength} bytes of vectors, expected ${n} x ${dims} float32`);
  // Copy: a Buffer from base64 may sit at an offset that Float32Array cannot view.
  const all = new Float32Array(new Uint8Array(buf).buffer);
  return Array.from({ length: n }, (_, i) => all.slice(i * dims, (i + 1) * dims));
}
