// Curated tasks: string_processing (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'truncate',
    query: 'Shorten text to at most max characters, cutting at the last space that leaves room for a trailing "..." (or mid-word when there is none); text that fits is returned unchanged and max below 3 gives that many dots.',
    code: `
function truncate(text, max) {
  if (text.length <= max) return text;
  if (max < 3) return '.'.repeat(Math.max(max, 0));
  let cut = text.lastIndexOf(' ', max - 3);
  if (cut <= 0) cut = max - 3;
  return text.slice(0, cut).trimEnd() + '...';
}`,
    calls: [['hello world', 20], ['hello world', 11], { args: ['hello world', 10], expected: 'hello...' }, ['hello world foo', 14], ['abcdefghij', 6], ['abc', 2], ['abcd', -1], ['a b c d e', 7], [' abcdef', 5]],
  },
  {
    lang: 'javascript',
    name: 'toRoman',
    query: 'Write an integer from 1 to 3999 in Roman numerals with subtractive pairs (4 is IV, 1994 is MCMXCIV); anything else throws a RangeError.',
    code: `
function toRoman(n) {
  if (!Number.isInteger(n) || n < 1 || n > 3999) throw new RangeError('out of range');
  const table = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];
  let out = '';
  let left = n;
  for (const [value, symbol] of table) {
    while (left >= value) {
      out += symbol;
      left -= value;
    }
  }
  return out;
}`,
    calls: [[1], [4], [9], [14], [40], { args: [1994], expected: 'MCMXCIV' }, [3999], [0], [4000], [2026]],
  },
  {
    lang: 'javascript',
    name: 'longestUniqueRun',
    query: 'Return the longest substring without a repeated character, the earliest one when several are equally long, and "" for an empty string.',
    code: `
function longestUniqueRun(s) {
  const lastSeen = new Map();
  let start = 0;
  let bestStart = 0;
  let bestLen = 0;
  for (let i = 0; i < s.length; i++) {
    const prev = lastSeen.get(s[i]);
    if (prev !== undefined && prev >= start) start = prev + 1;
    lastSeen.set(s[i], i);
    if (i - start + 1 > bestLen) {
      bestLen = i - start + 1;
      bestStart = start;
    }
  }
  return s.slice(bestStart, bestStart + bestLen);
}`,
    calls: [[''], ['a'], { args: ['abcabcbb'], expected: 'abc' }, ['bbbbb'], ['pwwkew'], ['abcdef'], ['abba'], ['dvdf'], ['tmmzuxt']],
  },
  {
    lang: 'javascript',
    name: 'fillTemplate',
    query: 'Replace each {name} placeholder in a template with the matching value, "{{" and "}}" standing for literal braces; a name missing from the values throws an Error and an unclosed "{" throws a SyntaxError.',
    code: `
function fillTemplate(template, values) {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const ch = template[i];
    if (ch === '{' && template[i + 1] === '{') {
      out += '{';
      i += 2;
    } else if (ch === '}' && template[i + 1] === '}') {
      out += '}';
      i += 2;
    } else if (ch === '{') {
      const end = template.indexOf('}', i);
      if (end < 0) throw new SyntaxError('unclosed placeholder');
      const key = template.slice(i + 1, end);
      if (!Object.hasOwn(values, key)) throw new Error('missing value for ' + key);
      out += String(values[key]);
      i = end + 1;
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}`,
    calls: [{ args: ['Hi {name}!', { name: 'Ann' }], expected: 'Hi Ann!' }, ['{a}{b}', { a: 1, b: 2 }], ['{{literal}}', {}], ['no placeholders', {}], ['{x}', {}], ['{x', { x: 1 }], ['', {}], ['{a} and {a}', { a: 'x' }], ['{{{a}}}', { a: 5 }]],
  },
  {
    lang: 'typescript',
    name: 'capitalizeSentences',
    query: 'Uppercase the first ASCII letter of each sentence, a sentence starting at the beginning of the text or after ".", "!" or "?"; spaces and newlines in between are skipped, while any other character (such as a digit) ends the search.',
    code: `
function capitalizeSentences(text: string): string {
  let out = '';
  let capNext = true;
  for (const ch of text) {
    if (capNext && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
      out += ch.toUpperCase();
      capNext = false;
    } else {
      out += ch;
      if (ch === '.' || ch === '!' || ch === '?') capNext = true;
      else if (ch !== ' ' && ch !== '\\n') capNext = false;
    }
  }
  return out;
}`,
    calls: [[''], ['hello'], { args: ['hello. world'], expected: 'Hello. World' }, ['wow! really? yes.'], ['a.b'], ['3 apples. ok'], ['ALREADY. Fine'], ['one.\ntwo'], ['zoo? éa z']],
  },
  {
    lang: 'typescript',
    name: 'wordCounts',
    query: 'Count the lower-cased words (runs of letters and apostrophes) of a text that are at least minLength characters long, as an object from word to count.',
    code: `
function wordCounts(text: string, minLength: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const word of text.toLowerCase().match(/[a-z']+/g) ?? []) {
    if (word.length < minLength) continue;
    counts[word] = (counts[word] ?? 0) + 1;
  }
  return counts;
}`,
    calls: [{ args: ['The cat and the hat', 1], expected: { the: 2, cat: 1, and: 1, hat: 1 } }, ['The cat and the hat', 4], ['a bb ccc', 2], ['', 1], ["Don't stop, don't!", 1], ['x x X', 1], ['go GO go.', 3], ['ab ab abc', 3]],
  },
  {
    lang: 'typescript',
    name: 'longestCommonSubstring',
    query: 'Return the longest string that occurs in both a and b as a contiguous substring, the one ending earliest in a on ties, and "" when they share no character.',
    code: `
function longestCommonSubstring(a: string, b: string): string {
  let bestLen = 0;
  let bestEnd = 0;
  let prev: number[] = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur: number[] = new Array(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) {
        cur[j] = prev[j - 1] + 1;
        if (cur[j] > bestLen) {
          bestLen = cur[j];
          bestEnd = i;
        }
      }
    }
    prev = cur;
  }
  return a.slice(bestEnd - bestLen, bestEnd);
}`,
    calls: [['', ''], ['abc', ''], { args: ['abcdef', 'zcdemf'], expected: 'cde' }, ['xyz', 'abc'], ['banana', 'ananas'], ['abab', 'baba'], ['same', 'same'], ['aXbXc', 'XbX'], ['ab', 'ba']],
  },
];
