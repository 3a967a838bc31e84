// Curated tasks: collections (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'slidingMax',
    query: 'Return the maximum of every window of k consecutive numbers, left to right; k of zero or less, or larger than the array, gives an empty array.',
    code: `
function slidingMax(nums, k) {
  if (k <= 0 || k > nums.length) return [];
  const out = [];
  for (let i = 0; i + k <= nums.length; i++) {
    out.push(Math.max(...nums.slice(i, i + k)));
  }
  return out;
}`,
    calls: [{ args: [[1, 3, 2, 5, 4], 2], expected: [3, 3, 5, 5] }, [[1, 3, 2, 5, 4], 3], [[4], 1], [[1, 2], 3], [[1, 2], 0], [[5, 4, 3, 2, 1], 1], [[2, 2, 2], 3], [[-1, -5, -3], 2]],
  },
  {
    lang: 'javascript',
    name: 'interleave',
    query: 'Interleave two arrays element by element starting with the first array, appending what is left of the longer one.',
    code: `
function interleave(a, b) {
  const out = [];
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (i < a.length) out.push(a[i]);
    if (i < b.length) out.push(b[i]);
  }
  return out;
}`,
    calls: [{ args: [[1, 2, 3], [4, 5, 6]], expected: [1, 4, 2, 5, 3, 6] }, [[1], [4, 5, 6]], [[1, 2, 3], [9]], [[], [7, 8]], [[7, 8], []], [[], []], [['a', 'b'], ['x', 'y']], [[0], [1]]],
  },
  {
    lang: 'javascript',
    name: 'inventoryDelta',
    query: 'Given item counts before and after as objects, return an object of the items whose count changed mapped to after minus before, a missing item counting as 0 and unchanged items left out.',
    code: `
function inventoryDelta(before, after) {
  const delta = {};
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const k of keys) {
    const d = (after[k] ?? 0) - (before[k] ?? 0);
    if (d !== 0) delta[k] = d;
  }
  return delta;
}`,
    calls: [{ args: [{ a: 1 }, { a: 3 }], expected: { a: 2 } }, [{ a: 3 }, { a: 1 }], [{ a: 1 }, {}], [{}, { b: 2 }], [{ a: 1, b: 2 }, { a: 1, b: 2 }], [{}, {}], [{ x: 5, y: 1 }, { x: 0, y: 1, z: 4 }], [{ a: 0 }, { a: 0, b: 0 }]],
  },
  {
    lang: 'javascript',
    name: 'chunkBySum',
    query: 'Split numbers greedily into consecutive chunks whose sums stay within a limit; an element larger than the limit forms a chunk of its own and an empty input gives no chunks.',
    code: `
function chunkBySum(nums, limit) {
  const chunks = [];
  let current = [];
  let sum = 0;
  for (const x of nums) {
    if (current.length > 0 && sum + x > limit) {
      chunks.push(current);
      current = [];
      sum = 0;
    }
    current.push(x);
    sum += x;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}`,
    calls: [{ args: [[1, 2, 3, 4], 5], expected: [[1, 2], [3], [4]] }, [[1, 2, 3, 4], 10], [[], 5], [[7, 1], 5], [[2, 3, 5], 5], [[1, 1, 1], 1], [[5], 5], [[1, 9, 1], 3]],
  },
  {
    lang: 'typescript',
    name: 'zipToObject',
    query: 'Build an object from parallel arrays of keys and numbers; keys without a value get 0, extra values are ignored and a repeated key keeps its last value.',
    code: `
function zipToObject(keys: string[], values: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < keys.length; i++) {
    out[keys[i]] = i < values.length ? values[i] : 0;
  }
  return out;
}`,
    calls: [{ args: [['a', 'b'], [1, 2]], expected: { a: 1, b: 2 } }, [['a', 'b', 'c'], [1]], [['a'], [1, 2, 3]], [[], [1]], [['a', 'a'], [1, 2]], [['x'], []], [['p', 'q'], [-1, 5]]],
  },
  {
    lang: 'typescript',
    name: 'lruContents',
    query: 'Simulate an LRU cache of the given capacity over a sequence of key accesses and return the cached keys from least to most recently used; capacity of zero or less keeps nothing.',
    code: `
function lruContents(capacity: number, accesses: string[]): string[] {
  if (capacity <= 0) return [];
  const cache = new Map<string, boolean>();
  for (const key of accesses) {
    if (cache.has(key)) cache.delete(key);
    cache.set(key, true);
    if (cache.size > capacity) {
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
    }
  }
  return [...cache.keys()];
}`,
    calls: [{ args: [2, ['a', 'b', 'c']], expected: ['b', 'c'] }, [2, ['a', 'b', 'a', 'c']], [3, ['a', 'b', 'a']], [0, ['a']], [1, ['a', 'b']], [2, []], [2, ['a', 'a', 'a']], [3, ['x', 'y', 'z', 'x', 'w']]],
  },
  {
    lang: 'typescript',
    name: 'topoOrder',
    query: 'Order the nodes of a dependency map (node to the nodes it needs, which may be absent as keys) so every node comes after what it needs, taking the alphabetically first ready node each time; a cycle throws an Error.',
    code: `
function topoOrder(deps: Record<string, string[]>): string[] {
  const indegree = new Map<string, number>();
  const users = new Map<string, string[]>();
  for (const [node, reqs] of Object.entries(deps)) {
    if (!indegree.has(node)) indegree.set(node, 0);
    for (const r of reqs) {
      if (!indegree.has(r)) indegree.set(r, 0);
      indegree.set(node, (indegree.get(node) ?? 0) + 1);
      users.set(r, [...(users.get(r) ?? []), node]);
    }
  }
  const ready = [...indegree.keys()].filter((n) => indegree.get(n) === 0).sort();
  const order: string[] = [];
  while (ready.length > 0) {
    const n = ready.shift() as string;
    order.push(n);
    for (const u of users.get(n) ?? []) {
      const left = (indegree.get(u) ?? 0) - 1;
      indegree.set(u, left);
      if (left === 0) {
        ready.push(u);
        ready.sort();
      }
    }
  }
  if (order.length < indegree.size) throw new Error('dependency cycle');
  return order;
}`,
    calls: [[{}], [{ a: [] }], [{ b: ['a'] }], [{ c: ['a', 'b'], b: ['a'] }], [{ a: ['b'], b: ['a'] }], [{ x: [], y: [], z: [] }], { args: [{ app: ['lib', 'util'], lib: ['util'], test: ['app'] }], expected: ['util', 'lib', 'app', 'test'] }, [{ a: ['a'] }], [{ d: ['b', 'c'], b: ['a'], c: ['a'] }]],
  },
];
