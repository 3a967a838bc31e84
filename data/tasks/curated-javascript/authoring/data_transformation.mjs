// Curated tasks: data_transformation (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'parseKeyValues',
    query: 'Parse "key=value" lines into an object, trimming spaces, skipping blank lines, lines starting with "#" and lines without "=", splitting at the first "=" and letting a later key win.',
    code: `
function parseKeyValues(text) {
  const out = {};
  for (const raw of text.split('\\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}`,
    calls: [{ args: ['a=1\nb=2'], expected: { a: '1', b: '2' } }, [' a = 1 '], ['# c\na=1'], ['x=1=2'], ['novalue\nk=v'], [''], ['a=\n=b'], ['a=1\na=2']],
  },
  {
    lang: 'javascript',
    name: 'movingAverage',
    query: 'Compute the simple moving average of every full window of a given size, each rounded to two decimals; a window of zero or less, or longer than the data, gives an empty array.',
    code: `
function movingAverage(values, window) {
  if (window <= 0 || window > values.length) return [];
  const out = [];
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i];
    if (i >= window) sum -= values[i - window];
    if (i >= window - 1) out.push(Math.round((sum / window) * 100) / 100);
  }
  return out;
}`,
    calls: [{ args: [[1, 2, 3, 4, 5], 2], expected: [1.5, 2.5, 3.5, 4.5] }, [[1, 2, 3, 4, 5], 5], [[1, 2, 3], 4], [[1, 2, 3], 0], [[4], 1], [[1, 1, 2], 2], [[10, 20, 30, 40], 3], [[1, 2], 1], [[0, 0, 1], 3]],
  },
  {
    lang: 'javascript',
    name: 'camelizeKeys',
    query: 'Convert the snake_case keys of a nested value to camelCase, recursing into objects and arrays and leaving strings, numbers and null values unchanged.',
    code: `
function camelizeKeys(value) {
  if (Array.isArray(value)) return value.map(camelizeKeys);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    out[k.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = camelizeKeys(v);
  }
  return out;
}`,
    calls: [{ args: [{ a_b: 1 }], expected: { aB: 1 } }, [{ first_name: 'x', last_name: 'y' }], [{ outer_key: { inner_key: 2 } }], [{ list_items: [{ item_id: 1 }, { item_id: 2 }] }], [{ a_b: null }], [{ plain: 'x_y' }], [[{ a_b: 1 }, 3]], [{ a__b: 1 }], [{ zone_2b: true }]],
  },
  {
    lang: 'javascript',
    name: 'percentRanks',
    query: 'For each value give the percentage (rounded to a whole number) of values in the list strictly smaller than it, so ties share a rank and the smallest value gets 0.',
    code: `
function percentRanks(values) {
  const n = values.length;
  return values.map((v) => {
    let below = 0;
    for (const w of values) if (w < v) below++;
    return Math.round((below * 100) / n);
  });
}`,
    calls: [[[]], [[5]], { args: [[1, 2, 3, 4]], expected: [0, 25, 50, 75] }, [[3, 1, 2]], [[2, 2, 2]], [[10, 20, 20, 30]], [[-1, 0]], [[5, 4, 3, 2, 1]]],
  },
  {
    lang: 'typescript',
    name: 'namesByAge',
    query: 'Return the names of the people at least minAge years old, oldest first and alphabetically among people of the same age.',
    code: `
interface Person {
  name: string;
  age: number;
}

function namesByAge(people: Person[], minAge: number): string[] {
  return people
    .filter((p) => p.age >= minAge)
    .sort((a, b) => b.age - a.age || a.name.localeCompare(b.name))
    .map((p) => p.name);
}`,
    calls: [
      { args: [[{ name: 'ann', age: 30 }, { name: 'bob', age: 20 }], 25], expected: ['ann'] },
      [[{ name: 'ann', age: 30 }, { name: 'bob', age: 20 }], 20],
      [[{ name: 'cy', age: 40 }, { name: 'al', age: 40 }, { name: 'bo', age: 50 }], 0],
      [[], 10],
      [[{ name: 'kid', age: 5 }], 18],
      [[{ name: 'x', age: 18 }, { name: 'y', age: 19 }], 18],
      [[{ name: 'b', age: 1 }, { name: 'a', age: 1 }, { name: 'c', age: 2 }], 1],
      [[{ name: 'old', age: 90 }, { name: 'young', age: 9 }], -1],
    ],
  },
  {
    lang: 'typescript',
    name: 'bucketize',
    query: 'Count the values falling in each interval [edges[i], edges[i+1]) of ascending bucket edges, the last bucket also including its upper edge and values outside every bucket ignored.',
    code: `
function bucketize(values: number[], edges: number[]): number[] {
  const counts: number[] = new Array(Math.max(edges.length - 1, 0)).fill(0);
  for (const v of values) {
    for (let i = 0; i < counts.length; i++) {
      const last = i === counts.length - 1;
      if (v >= edges[i] && (v < edges[i + 1] || (last && v === edges[i + 1]))) {
        counts[i]++;
        break;
      }
    }
  }
  return counts;
}`,
    calls: [{ args: [[1, 2, 3, 4, 5], [0, 2, 4, 6]], expected: [1, 2, 2] }, [[0, 2, 4], [0, 2, 4]], [[-1, 7], [0, 5]], [[5], [0, 5]], [[], [0, 1, 2]], [[1], [0]], [[1], []], [[2.5, 2.5, 9], [0, 2.5, 10]], [[3, 3, 1], [1, 3, 5]]],
  },
];
