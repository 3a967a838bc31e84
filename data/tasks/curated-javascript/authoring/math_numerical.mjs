// Curated tasks: math_numerical (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'lcmAll',
    query: 'Return the least common multiple of a list of non-negative integers, 1 for an empty list and 0 as soon as any number is 0.',
    code: `
function lcmAll(nums) {
  const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
  let acc = 1;
  for (const n of nums) {
    if (n === 0) return 0;
    acc = (acc / gcd(acc, n)) * n;
  }
  return acc;
}`,
    calls: [[[]], [[5]], { args: [[4, 6]], expected: 12 }, [[2, 3, 5]], [[6, 0, 4]], [[12, 18, 8]], [[7, 7]], [[1, 1, 1]], [[9, 6]]],
  },
  {
    lang: 'javascript',
    name: 'primeFactors',
    query: 'Return the prime factorisation of an integer as an ascending list with multiplicity (12 gives [2, 2, 3]); numbers below 2 give an empty list.',
    code: `
function primeFactors(n) {
  const out = [];
  let x = n;
  for (let p = 2; p * p <= x; p++) {
    while (x % p === 0) {
      out.push(p);
      x /= p;
    }
  }
  if (x > 1) out.push(x);
  return out;
}`,
    calls: [[1], [0], [2], { args: [12], expected: [2, 2, 3] }, [97], [100], [49], [360], [2310]],
  },
  {
    lang: 'javascript',
    name: 'median',
    query: 'Return the median of a list of numbers without changing the list, averaging the two middle values for an even count; an empty list throws a RangeError.',
    code: `
function median(nums) {
  if (nums.length === 0) throw new RangeError('empty list');
  const s = [...nums].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}`,
    calls: [[[]], [[5]], [[3, 1, 2]], { args: [[4, 1, 3, 2]], expected: 2.5 }, [[10, -10]], [[1, 1, 1, 1]], [[7, 3, 9, 100, 1]], [[2, 8]], [[10, 2, 33]]],
  },
  {
    lang: 'javascript',
    name: 'continuedFraction',
    query: 'Return the terms of the continued fraction expansion of num/den using floor division (415/93 gives [4, 2, 6, 7]); a zero denominator throws a RangeError.',
    code: `
function continuedFraction(num, den) {
  if (den === 0) throw new RangeError('zero denominator');
  const terms = [];
  let a = num;
  let b = den;
  while (b !== 0) {
    const q = Math.floor(a / b);
    terms.push(q);
    [a, b] = [b, a - q * b];
  }
  return terms;
}`,
    calls: [{ args: [415, 93], expected: [4, 2, 6, 7] }, [1, 1], [0, 5], [7, 2], [2, 7], [5, 0], [-7, 2], [13, 8], [10, 5]],
  },
  {
    lang: 'typescript',
    name: 'pascalRow',
    query: 'Return row n of Pascal\'s triangle (row 0 is [1]); a negative n throws a RangeError.',
    code: `
function pascalRow(n: number): number[] {
  if (n < 0) throw new RangeError('negative row');
  const row: number[] = [1];
  for (let k = 1; k <= n; k++) {
    row.push((row[k - 1] * (n - k + 1)) / k);
  }
  return row;
}`,
    calls: [[0], [1], [2], { args: [4], expected: [1, 4, 6, 4, 1] }, [5], [10], [-1], [3]],
  },
  {
    lang: 'typescript',
    name: 'weightedMean',
    query: 'Return the mean of values weighted by parallel weights; arrays of different lengths or weights summing to zero throw a RangeError.',
    approx: 1e-9,
    code: `
function weightedMean(values: number[], weights: number[]): number {
  if (values.length !== weights.length) throw new RangeError('length mismatch');
  let total = 0;
  let weightSum = 0;
  for (let i = 0; i < values.length; i++) {
    total += values[i] * weights[i];
    weightSum += weights[i];
  }
  if (weightSum === 0) throw new RangeError('zero total weight');
  return total / weightSum;
}`,
    calls: [[[1, 2, 3], [1, 1, 1]], { args: [[10, 20], [3, 1]], expected: 12.5 }, [[5], [2]], [[1, 2], [1]], [[], []], [[1, 3], [0, 0]], [[2, 4], [1, 3]], [[1, 2], [1, -1]], [[4, 8], [0, 2]]],
  },
];
