// Curated tasks: sorting_searching (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'lowerBound',
    query: 'Binary-search an ascending array for the index of the first element not less than the target, returning the array length when every element is smaller.',
    code: `
function lowerBound(sorted, target) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}`,
    calls: [[[], 5], [[1, 3, 5], 0], [[1, 3, 5], 1], { args: [[1, 3, 5], 2], expected: 1 }, [[1, 3, 5], 5], [[1, 3, 5], 6], [[2, 2, 2, 3], 2], [[1, 2, 2, 2], 2], [[1, 2, 4, 4, 5], 3]],
  },
  {
    lang: 'javascript',
    name: 'sortByFields',
    query: 'Sort records stably by a list of field names, ascending, where a field name prefixed with "-" sorts that field descending; the input array is not modified.',
    code: `
function sortByFields(records, fields) {
  const cmp = (a, b) => {
    for (const f of fields) {
      const desc = f.startsWith('-');
      const key = desc ? f.slice(1) : f;
      if (a[key] < b[key]) return desc ? 1 : -1;
      if (a[key] > b[key]) return desc ? -1 : 1;
    }
    return 0;
  };
  return [...records].sort(cmp);
}`,
    calls: [
      { args: [[{ n: 2 }, { n: 1 }, { n: 3 }], ['n']], expected: [{ n: 1 }, { n: 2 }, { n: 3 }] },
      [[{ n: 2 }, { n: 1 }, { n: 3 }], ['-n']],
      [[{ a: 1, b: 'y' }, { a: 0, b: 'z' }, { a: 1, b: 'x' }], ['a', 'b']],
      [[{ a: 1, b: 'y' }, { a: 0, b: 'z' }, { a: 1, b: 'x' }], ['-a', 'b']],
      [[{ a: 1, id: 1 }, { a: 1, id: 2 }, { a: 0, id: 3 }], ['a']],
      [[{ a: 1, id: 1 }, { a: 2, id: 2 }], []],
      [[], ['a']],
      [[{ s: 'b', t: 2 }, { s: 'a', t: 2 }, { s: 'c', t: 1 }], ['-t', '-s']],
    ],
  },
  {
    lang: 'javascript',
    name: 'kClosest',
    query: 'Return the k numbers closest to a target in ascending order, preferring the smaller number when two are equally close; k of zero or less gives an empty array and k beyond the length gives all numbers.',
    code: `
function kClosest(nums, target, k) {
  if (k <= 0) return [];
  return [...nums]
    .sort((a, b) => Math.abs(a - target) - Math.abs(b - target) || a - b)
    .slice(0, k)
    .sort((a, b) => a - b);
}`,
    calls: [{ args: [[1, 2, 3, 4, 5], 3, 2], expected: [2, 3] }, [[1, 2, 3, 4, 5], 3, 3], [[1, 5], 3, 1], [[10, 1, 7], 8, 2], [[1, 2], 0, 5], [[4, 4, 1], 4, 0], [[5, 6], 3, -1], [[-3, -1, 2], 0, 2], [[20, 9, 11, 30], 10, 3]],
  },
  {
    lang: 'javascript',
    name: 'searchMatrix',
    query: 'Find a target in a matrix whose rows are sorted and each row starts above the previous row\'s end, returning [row, column] or null when absent, including for an empty matrix.',
    code: `
function searchMatrix(matrix, target) {
  const rows = matrix.length;
  if (rows === 0) return null;
  const cols = matrix[0].length;
  let lo = 0;
  let hi = rows * cols - 1;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const v = matrix[Math.floor(mid / cols)][mid % cols];
    if (v === target) return [Math.floor(mid / cols), mid % cols];
    if (v < target) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}`,
    calls: [{ args: [[[1, 3, 5], [7, 9, 11]], 9], expected: [1, 1] }, [[[1, 3, 5], [7, 9, 11]], 1], [[[1, 3, 5], [7, 9, 11]], 11], [[[1, 3, 5], [7, 9, 11]], 4], [[[1, 3, 5], [7, 9, 11]], 12], [[[1, 3, 5], [7, 9, 11]], 0], [[], 1], [[[]], 1], [[[2]], 2], [[[1, 2], [3, 4], [5, 6]], 5]],
  },
  {
    lang: 'typescript',
    name: 'mergeSortedLists',
    query: 'Merge any number of ascending arrays into one ascending array, keeping duplicates; empty input lists are allowed.',
    code: `
function mergeSortedLists(lists: number[][]): number[] {
  const idx: number[] = lists.map(() => 0);
  const out: number[] = [];
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      if (idx[i] < lists[i].length && (best < 0 || lists[i][idx[i]] < lists[best][idx[best]])) best = i;
    }
    if (best < 0) return out;
    out.push(lists[best][idx[best]]);
    idx[best]++;
  }
}`,
    calls: [[[]], [[[]]], { args: [[[1, 4], [2, 3]]], expected: [1, 2, 3, 4] }, [[[1], [1], [1]]], [[[5, 6], [], [1, 9]]], [[[-2, 0, 7]]], [[[3], [1, 2]]], [[[1, 1, 2], [1, 3]]]],
  },
  {
    lang: 'typescript',
    name: 'competitionRanks',
    query: 'Give each score its standard competition rank ("1224" ranking): one more than the number of strictly higher scores, so equal scores share a rank and leave a gap after them.',
    code: `
function competitionRanks(scores: number[]): number[] {
  const sorted = [...scores].sort((a, b) => b - a);
  return scores.map((s) => sorted.findIndex((x) => x <= s) + 1);
}`,
    calls: [[[]], [[10]], [[10, 20]], { args: [[5, 5, 3]], expected: [1, 1, 3] }, [[1, 2, 3, 2, 1]], [[-1, -1, -2]], [[100, 50, 100, 75]], [[0, 0, 0]], [[3, 1, 2]]],
  },
];
