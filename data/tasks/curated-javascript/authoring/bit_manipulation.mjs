// Curated tasks: bit_manipulation (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'countSetBits',
    query: 'Count the one bits of a number taken as an unsigned 32-bit integer, so negative numbers count their two\'s complement bits (-1 has 32).',
    code: `
function countSetBits(n) {
  let x = n >>> 0;
  let count = 0;
  while (x !== 0) {
    x &= x - 1;
    count++;
  }
  return count;
}`,
    calls: [[0], { args: [1], expected: 1 }, [255], [256], { args: [-1], expected: 32 }, [2147483648], [1023], [6]],
  },
  {
    lang: 'javascript',
    name: 'clearLowBits',
    query: 'Clear the k lowest bits of a 32-bit unsigned integer; k of zero or less leaves it unchanged and k of 32 or more gives 0.',
    code: `
function clearLowBits(n, k) {
  if (k <= 0) return n >>> 0;
  if (k >= 32) return 0;
  return ((n >>> k) << k) >>> 0;
}`,
    calls: [{ args: [255, 4], expected: 240 }, [255, 0], [255, -3], [255, 32], [255, 40], [-1, 31], [1, 1], [12, 2], [13, 2], [-1, 1]],
  },
  {
    lang: 'javascript',
    name: 'setBitPositions',
    query: 'List the positions of the set bits of a non-negative integer below 2**31 in ascending order, bit 0 being the least significant; 0 gives an empty list.',
    code: `
function setBitPositions(n) {
  const out = [];
  for (let i = 0; i < 31; i++) {
    if ((n >> i) & 1) out.push(i);
  }
  return out;
}`,
    calls: [[0], [1], { args: [5], expected: [0, 2] }, [1024], [2 ** 30], [2 ** 31 - 1], [6], [9]],
  },
  {
    lang: 'javascript',
    name: 'packRgb',
    query: 'Pack integer red, green and blue channel values into one 24-bit integer (red in the high byte), clamping each channel into 0..255 first; a non-integer channel throws a TypeError.',
    code: `
function packRgb(r, g, b) {
  if (![r, g, b].every(Number.isInteger)) throw new TypeError('channels must be integers');
  const clamp = (v) => Math.min(255, Math.max(0, v));
  return (clamp(r) << 16) | (clamp(g) << 8) | clamp(b);
}`,
    calls: [[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [300, -5, 16], { args: [18, 52, 86], expected: 0x123456 }, [1, 2, 3], [1.5, 0, 0]],
  },
  {
    lang: 'javascript',
    name: 'rotateLeft32',
    query: 'Rotate a 32-bit unsigned integer left by k bits, k taken modulo 32 so negative k rotates right, returning an unsigned result.',
    code: `
function rotateLeft32(n, k) {
  const s = ((k % 32) + 32) % 32;
  if (s === 0) return n >>> 0;
  return ((n << s) | (n >>> (32 - s))) >>> 0;
}`,
    calls: [[1, 1], [1, 31], [0x80000000, 1], [1, 32], [1, -1], { args: [0x12345678, 8], expected: 0x34567812 }, [0xff, 4], [3, 0], [-1, 5]],
  },
  {
    lang: 'typescript',
    name: 'unpackRgb',
    query: 'Split a 24-bit color integer into its [red, green, blue] bytes; a value below 0 or above 0xFFFFFF throws a RangeError.',
    code: `
function unpackRgb(color: number): number[] {
  if (color < 0 || color > 0xffffff) throw new RangeError('color out of range');
  return [(color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff];
}`,
    calls: [[0], [0xffffff], { args: [0x123456], expected: [18, 52, 86] }, [0xff0000], [255], { args: [-1], throws: 'RangeError' }, [0x1000000], [256]],
  },
  {
    lang: 'typescript',
    name: 'highestOneBit',
    query: 'Return the largest power of two that is at most n (n up to 2**32 - 1), or 0 when n is zero or negative.',
    code: `
function highestOneBit(n: number): number {
  if (n <= 0) return 0;
  let bit = 1;
  while (bit * 2 <= n) bit *= 2;
  return bit;
}`,
    calls: [[0], [-5], [1], [2], [3], [64], { args: [100], expected: 64 }, [2 ** 31], [2 ** 32 - 1]],
  },
];
