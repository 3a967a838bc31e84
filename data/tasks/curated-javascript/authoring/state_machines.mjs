// Curated tasks: state_machines (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'tokenize',
    query: 'Split an arithmetic expression into tokens: runs of digits as number strings and each of + - * / ( ) on its own, skipping spaces; any other character throws a SyntaxError.',
    code: `
function tokenize(expr) {
  const tokens = [];
  let num = '';
  for (const ch of expr) {
    if (ch >= '0' && ch <= '9') {
      num += ch;
      continue;
    }
    if (num !== '') {
      tokens.push(num);
      num = '';
    }
    if ('+-*/()'.includes(ch)) tokens.push(ch);
    else if (ch !== ' ') throw new SyntaxError('unexpected ' + ch);
  }
  if (num !== '') tokens.push(num);
  return tokens;
}`,
    calls: [{ args: ['1+2'], expected: ['1', '+', '2'] }, [' 12 * (3-4) '], [''], ['007'], ['9'], ['1 2'], ['2^3'], ['(0)'], ['a']],
  },
  {
    lang: 'javascript',
    name: 'circuitBreaker',
    query: 'Simulate a circuit breaker over call results ("ok"/"fail"): after threshold consecutive failures it opens and rejects the next cooldown calls ("rejected"), then lets one trial call through that closes it on "ok" or reopens it on "fail"; return the outcome of every call.',
    code: `
function circuitBreaker(results, threshold, cooldown) {
  const out = [];
  let state = 'closed';
  let failures = 0;
  let waited = 0;
  for (const r of results) {
    if (state === 'open') {
      if (waited < cooldown) {
        waited++;
        out.push('rejected');
        continue;
      }
      state = 'half-open';
    }
    out.push(r);
    if (r === 'ok') {
      state = 'closed';
      failures = 0;
    } else {
      failures++;
      if (state === 'half-open' || failures >= threshold) {
        state = 'open';
        waited = 0;
      }
    }
  }
  return out;
}`,
    calls: [
      [['ok', 'ok'], 2, 1],
      { args: [['fail', 'fail', 'ok', 'ok'], 2, 1], expected: ['fail', 'fail', 'rejected', 'ok'] },
      [['fail', 'ok', 'fail', 'ok'], 2, 1],
      [['fail', 'fail', 'fail', 'fail', 'ok'], 2, 2],
      { args: [['fail', 'fail', 'ok', 'fail', 'ok'], 2, 1], expected: ['fail', 'fail', 'rejected', 'fail', 'rejected'] },
      [[], 3, 1],
      [['fail', 'fail'], 1, 0],
      [['fail', 'ok', 'ok'], 1, 1],
      [['fail', 'fail', 'ok', 'fail', 'fail', 'fail', 'ok'], 3, 1],
    ],
  },
  {
    lang: 'javascript',
    name: 'wildcardMatch',
    query: 'Match a whole string against a glob pattern where "?" matches exactly one character and "*" any run of characters (including none), by stepping a set of pattern positions through the text.',
    code: `
function wildcardMatch(pattern, text) {
  const close = (set) => {
    for (const s of [...set]) {
      let i = s;
      while (i < pattern.length && pattern[i] === '*') set.add(++i);
    }
    return set;
  };
  let states = close(new Set([0]));
  for (const ch of text) {
    const next = new Set();
    for (const s of states) {
      if (s >= pattern.length) continue;
      const p = pattern[s];
      if (p === '*') next.add(s);
      else if (p === '?' || p === ch) next.add(s + 1);
    }
    states = close(next);
    if (states.size === 0) return false;
  }
  return states.has(pattern.length);
}`,
    calls: [{ args: ['a*b', 'ab'], expected: true }, ['a*b', 'axxb'], ['a*b', 'axxc'], ['?', ''], ['', ''], ['*', ''], ['a?c', 'abc'], ['a?c', 'ac'], ['**a', 'ba'], ['abc', 'abcd']],
  },
  {
    lang: 'javascript',
    name: 'typeKeys',
    query: 'Replay keystrokes on a one-line editor: "<" and ">" move the cursor left and right (ignored at either end), "#" deletes the character before the cursor, any other character is typed at the cursor; return the final text.',
    code: `
function typeKeys(keys) {
  const left = [];
  const right = [];
  for (const k of keys) {
    if (k === '<') {
      if (left.length > 0) right.push(left.pop());
    } else if (k === '>') {
      if (right.length > 0) left.push(right.pop());
    } else if (k === '#') {
      left.pop();
    } else {
      left.push(k);
    }
  }
  return left.join('') + right.reverse().join('');
}`,
    calls: [['abc'], { args: ['ab<c'], expected: 'acb' }, ['ab#c'], ['<<a'], ['a>>b'], ['ab<<#c'], ['abc<<>x'], ['#'], ['ab<<>#'], ['a<b<c']],
  },
  {
    lang: 'typescript',
    name: 'parseIni',
    query: 'Parse INI text into {section: {key: value}}, keys before any [section] going under "", trimming names and values, skipping blank lines and ";" comments; a line that is neither a header nor key=value with a non-empty key throws a SyntaxError.',
    code: `
function parseIni(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let section = '';
  for (const raw of text.split('\\n')) {
    const line = raw.trim();
    if (line === '' || line[0] === ';') continue;
    if (line[0] === '[' && line[line.length - 1] === ']') {
      section = line.slice(1, -1).trim();
      out[section] ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new SyntaxError('bad line: ' + line);
    (out[section] ??= {})[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}`,
    calls: [{ args: ['[a]\nx=1'], expected: { a: { x: '1' } } }, ['x=1'], ['[a]\n[b]\ny = 2'], ['; c\n[s]\nk=v=w'], ['[s]\n=v'], ['[s]\nnovalue'], [''], ['[ s ]\nk=1\n[s]\nj=2'], ['[a]\nk=1\nk=2']],
  },
  {
    lang: 'typescript',
    name: 'robotPosition',
    query: 'Drive a robot from (0, 0) facing "N" with commands L and R (turn 90 degrees), F (one step forward) and B (one step back), returning [x, y, heading]; any other command throws an Error.',
    code: `
function robotPosition(commands: string): [number, number, string] {
  const headings = ['N', 'E', 'S', 'W'];
  const dx = [0, 1, 0, -1];
  const dy = [1, 0, -1, 0];
  let x = 0;
  let y = 0;
  let h = 0;
  for (const c of commands) {
    if (c === 'L') h = (h + 3) % 4;
    else if (c === 'R') h = (h + 1) % 4;
    else if (c === 'F') {
      x += dx[h];
      y += dy[h];
    } else if (c === 'B') {
      x -= dx[h];
      y -= dy[h];
    } else throw new Error('unknown command ' + c);
  }
  return [x, y, headings[h]];
}`,
    calls: [[''], ['F'], { args: ['RF'], expected: [1, 0, 'E'] }, ['LF'], ['LLLL'], ['RRB'], ['FFRFFLB'], ['X'], ['RRRF']],
  },
];
