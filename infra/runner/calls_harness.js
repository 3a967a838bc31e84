// The JavaScript side of a `calls` suite (infra/runner/sandbox_calls.py): run with `node -e` in the sandboxed
// child, after its isolation. Reads {code, entry, calls: [{a, m}]} on stdin (arguments only, never an expected
// value), loads the candidate, calls the entry function once per call and writes one plain-data report line per
// call on fd 3: {"i": k, "v": [{"r": value} | {"t": constructor name, "m": message}]} or
// {"i": k, "v": [], "o": "ERROR: ..."}. The judge decides every verdict; a forged line can only claim a value.
'use strict';
const fs = require('fs');
// Taken before any candidate code runs, so that replacing them changes what the candidate calls, not what we write.
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const isArray = Array.isArray;
const getPrototypeOf = Object.getPrototypeOf;
const keys = Object.keys;
const ObjectProto = Object.prototype;
const DateProto = Date.prototype;
const toISOString = Date.prototype.toISOString;
const MAX_BYTES = 1 << 20;
const MAX_DEPTH = 100;

class NotData extends Error {}

// A value as plain JSON data: the judge compares it with `expected` (numbers as numbers, key order ignored).
// Non-finite numbers cross as {"$float": "NaN"} etc.; anything that is not data (a function, a Map, a class
// instance) fails its call rather than being guessed at.
function enc(v, depth) {
  if (depth > MAX_DEPTH) throw new NotData('too deep');
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : { $float: String(v) };
    case 'object': {
      if (isArray(v)) {
        const out = [];
        for (let k = 0; k < v.length; k++) out.push(enc(v[k], depth + 1));
        return out;
      }
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return enc(Array.from(v), depth);
      const proto = getPrototypeOf(v);
      if (proto === DateProto) return toISOString.call(v);
      if (proto !== ObjectProto && proto !== null) throw new NotData('not plain data');
      const out = {};
      for (const k of keys(v)) out[k] = enc(v[k], depth + 1);
      return out;
    }
    default:
      throw new NotData(typeof v);
  }
}

const exit = process.exit.bind(process);

function line(obj) {
  write(stringify(obj));
}

function write(text) {
  const buf = Buffer.from(text + '\n', 'utf8');
  let off = 0;
  while (off < buf.length) off += writeSync(3, buf, off);
}

function errorName(e) {
  try {
    const name = e !== null && (typeof e === 'object' || typeof e === 'function') ? e.constructor && e.constructor.name : null;
    return typeof name === 'string' && name ? name.slice(0, 100) : typeof e;
  } catch {
    return 'unknown';
  }
}

function errorMessage(e) {
  try {
    return String(e && e.message !== undefined ? e.message : e).slice(0, 200);
  } catch {
    return '';
  }
}

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const calls = input.calls;
let fn = null;
let stop = null;
try {
  // The candidate is a script of declarations; its entry function is read by name after it ran.
  fn = new Function(`${input.code}\n;return typeof ${input.entry} === 'function' ? ${input.entry} : undefined;`)();
  if (typeof fn !== 'function') stop = 'ERROR: ReferenceError';
} catch (e) {
  stop = `ERROR: ${errorName(e)}`;
}
for (let i = 0; i < calls.length; i++) {
  if (stop !== null) {
    line({ i, v: [], o: stop });
    continue;
  }
  const args = calls[i].a;
  let result;
  try {
    const r = fn(...args);
    result = { r: calls[i].m === null || calls[i].m === undefined ? r : args[calls[i].m] };
  } catch (e) {
    result = { t: errorName(e), m: errorMessage(e) };
  }
  let text;
  try {
    if ('r' in result) result = { r: enc(result.r, 0) };
    text = stringify({ i, v: [result] });
    if (text.length > MAX_BYTES) throw new NotData('too large');
  } catch {
    line({ i, v: [], o: 'ERROR: ValueNotData' });
    continue;
  }
  write(text);
}
exit(0);
