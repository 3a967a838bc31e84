/**
 * Seeded pseudo-random numbers for the bootstrap: xoshiro128** 1.1 (Blackman & Vigna, "Scrambled linear
 * pseudorandom number generators", 2018; public-domain reference code at prng.di.unimi.it), with its 128-bit
 * state filled from one 32-bit seed by a SplitMix32-style expander (golden-ratio increment 0x9e3779b9, each
 * step finalised by Wellons' lowbias32 hash), following the authors' advice to seed from a SplitMix generator.
 * Hand-written because it is 20 lines, all 32-bit integer arithmetic (fast in JS, no BigInt), and we must be
 * able to say exactly which generator a recorded seed refers to. `Math.random` cannot be seeded.
 */
export const PRNG_NAME = 'xoshiro128** 1.1, seeded by SplitMix32 (lowbias32 finaliser)';

export class Xoshiro128 {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new RangeError(`seed must be an integer in [0, 2^32), got ${seed}`);
    }
    let z = seed >>> 0;
    const next = (): number => {
      // Weyl step, then lowbias32 (C. Wellons, hash-prospector: shifts 16/15/15, multipliers below).
      z = (z + 0x9e3779b9) >>> 0;
      let t = z ^ (z >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1; // the all-zero state is a fixed point
  }

  /** Next uniformly distributed unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /**
   * Uniform integer in [0, n) without modulo bias: draws at or above the largest multiple of n below 2^32 are
   * rejected and redrawn (at most n/2^32 of draws, i.e. never in practice for query counts).
   */
  nextInt(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 0x100000000) throw new RangeError(`nextInt: n must be in [1, 2^32], got ${n}`);
    const limit = 0x100000000 - (0x100000000 % n);
    for (;;) {
      const u = this.nextU32();
      if (u < limit) return u % n;
    }
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
