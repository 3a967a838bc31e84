/**
 * The bootstrap's inner product in WebAssembly SIMD: four replicates × four columns per call, two replicates per
 * f64x2 lane pair. JavaScript has no vector arithmetic, and this loop is most of the statistics' time (numpy does
 * it through BLAS). Each lane computes `acc = acc + w * x` over j in increasing order from +0 with a separate
 * multiply and add (WebAssembly never fuses them), exactly as the scalar loop did, so the sums are bit-identical.
 *
 * The module is 200 bytes, assembled here rather than built by a toolchain the project does not otherwise need.
 *
 * kernel(c01, c23, xa, xb, xc, xd, n, out), byte addresses in the module's memory:
 *   c01 / c23: n pairs of doubles, (counts of replicate r, of r + 1) and (r + 2, r + 3) per query j;
 *   xa … xd: the four columns, n doubles each; out: 16 doubles, column-major (out[4q + t] = column q, replicate t).
 */
const uleb = (v: number): number[] => {
  const out: number[] = [];
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
};
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_CONST = 0x41;
const I32_ADD = 0x6a;
const SIMD = 0xfd;
const V128_LOAD = [SIMD, 0x00, 4, 0];
const F64_LOAD = [0x2b, 3, 0];
const F64X2_SPLAT = [SIMD, 0x14];
const F64X2_MUL = [SIMD, 0xf2, 0x01];
const F64X2_ADD = [SIMD, 0xf0, 0x01];

function kernelBody(): number[] {
  // Params 0-7 as above; locals: 8 j (byte offset into a column), 9 k (into a pair array), 10 end (= n * 8),
  // 11-18 the accumulators (a01 a23 b01 b23 c01 c23 d01 d23), 19 w01, 20 w23, 21 the splatted x.
  const code: number[] = [LOCAL_GET, 6, I32_CONST, 3, 0x74 /* i32.shl */, LOCAL_SET, 10];
  code.push(0x02, 0x40 /* block */, LOCAL_GET, 10, 0x45 /* i32.eqz */, 0x0d, 0 /* br_if */, 0x03, 0x40 /* loop */);
  code.push(LOCAL_GET, 0, LOCAL_GET, 9, I32_ADD, ...V128_LOAD, LOCAL_SET, 19);
  code.push(LOCAL_GET, 1, LOCAL_GET, 9, I32_ADD, ...V128_LOAD, LOCAL_SET, 20);
  for (let q = 0; q < 4; q++) {
    code.push(LOCAL_GET, 2 + q, LOCAL_GET, 8, I32_ADD, ...F64_LOAD, ...F64X2_SPLAT, LOCAL_SET, 21);
    for (let half = 0; half < 2; half++) {
      const acc = 11 + 2 * q + half;
      code.push(LOCAL_GET, acc, LOCAL_GET, 19 + half, LOCAL_GET, 21, ...F64X2_MUL, ...F64X2_ADD, LOCAL_SET, acc);
    }
  }
  code.push(LOCAL_GET, 8, I32_CONST, 8, I32_ADD, LOCAL_SET, 8);
  code.push(LOCAL_GET, 9, I32_CONST, 16, I32_ADD, LOCAL_SET, 9);
  code.push(LOCAL_GET, 8, LOCAL_GET, 10, 0x49 /* i32.lt_u */, 0x0d, 0, 0x0b /* end loop */, 0x0b /* end block */);
  for (let i = 0; i < 8; i++) code.push(LOCAL_GET, 7, LOCAL_GET, 11 + i, SIMD, 0x0b /* v128.store */, 4, ...uleb(16 * i));
  code.push(0x0b);
  const locals = [2, 3, 0x7f, 11, 0x7b]; // 3 × i32, 11 × v128
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 8, ...Array<number>(8).fill(0x7f), 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, 1, 0x6b /* k */, 0x00, 0, 1, 0x6d /* m */, 0x02, 0]),
    ...section(10, [1, ...kernelBody()]),
  ];
  return new Uint8Array(bytes);
}

export interface SimdKernel {
  kernel: (c01: number, c23: number, xa: number, xb: number, xc: number, xd: number, n: number, out: number) => void;
  memory: WebAssembly.Memory;
}

let compiled: WebAssembly.Module | undefined;

/** A fresh instance (its own memory), so that concurrent callers never share buffers. */
export function simdKernel(): SimdKernel {
  compiled ??= new WebAssembly.Module(moduleBytes());
  const inst = new WebAssembly.Instance(compiled);
  return { kernel: inst.exports.k as SimdKernel['kernel'], memory: inst.exports.m as WebAssembly.Memory };
}
