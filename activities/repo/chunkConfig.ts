import type { Chunk, Language } from '../../schemas/repoIndex.ts';
import { fileRole } from '../../core/repo/roles.ts';
import { boundSpans, byteOffsets, chunksFromParts, DEFAULT_CHUNK_LIMITS, lineNumbers, type ChunkLimits } from '../../core/repo/chunkBounds.ts';

/**
 * Config files (JSON, YAML, TOML) chunked by key: one chunk per top-level key (or TOML table), its symbols
 * the key and the key paths one level below it (`engines`, `engines.node`), so a gold target can name the
 * field it asks for and a chunk that lacks it cannot pass for it. Chunks tile the file: text before the
 * first key goes with the first, the closing brace with the last. Files that do not scan as keyed config
 * (a JSON array, a YAML list) return null and fall back to the text chunker.
 */
export const CONFIG_CHUNKER_VERSION = 'config-2';

interface Entry {
  /** Offset of the entry's first character (its key, or a comment directly above it). */
  start: number;
  /** Offset just past its value. */
  end: number;
  key: string;
  children: string[];
}

/** Skips whitespace and comments (JSONC: tsconfig and friends allow them). */
function skipSpace(s: string, i: number): number {
  for (;;) {
    while (i < s.length && /\s/.test(s[i])) i++;
    if (s.startsWith('//', i)) i = s.indexOf('\n', i) === -1 ? s.length : s.indexOf('\n', i);
    else if (s.startsWith('/*', i)) i = s.indexOf('*/', i) === -1 ? s.length : s.indexOf('*/', i) + 2;
    else return i;
  }
}

function readString(s: string, i: number): number {
  // s[i] is the opening quote; returns the offset past the closing one.
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  throw new Error('unterminated string');
}

/** Offset past the JSON value starting at i; collects the keys of an object value into `keys`. */
function skipValue(s: string, i: number, keys?: string[]): number {
  if (s[i] === '"') return readString(s, i);
  if (s[i] === '{' || s[i] === '[') {
    const close = s[i] === '{' ? '}' : ']';
    let j = skipSpace(s, i + 1);
    while (j < s.length && s[j] !== close) {
      if (close === '}') {
        const k = readString(s, j);
        keys?.push(JSON.parse(s.slice(j, k)) as string);
        j = skipSpace(s, k);
        if (s[j] !== ':') throw new Error(`expected ":" at ${j}`);
        j = skipSpace(s, j + 1);
      }
      j = skipSpace(s, skipValue(s, j));
      if (s[j] === ',') j = skipSpace(s, j + 1);
      else if (s[j] !== close) throw new Error(`expected "," or "${close}" at ${j}`);
    }
    if (s[j] !== close) throw new Error('unterminated');
    return j + 1;
  }
  const m = /^[^\s,}\]]+/.exec(s.slice(i, i + 400));
  if (!m) throw new Error(`bad value at ${i}`);
  return i + m[0].length;
}

function jsonEntries(s: string): Entry[] | null {
  try {
    let i = skipSpace(s, 0);
    if (s[i] !== '{') return null;
    i = skipSpace(s, i + 1);
    const out: Entry[] = [];
    while (i < s.length && s[i] !== '}') {
      const k = readString(s, i);
      const key = JSON.parse(s.slice(i, k)) as string;
      let j = skipSpace(s, k);
      if (s[j] !== ':') return null;
      j = skipSpace(s, j + 1);
      const children: string[] = [];
      const end = skipValue(s, j, s[j] === '{' ? children : undefined);
      const ls = s.lastIndexOf('\n', i - 1) + 1;
      out.push({ start: out.length ? (s.slice(ls, i).trim() ? i : ls) : i, end, key, children });
      i = skipSpace(s, end);
      if (s[i] === ',') i++;
      i = skipSpace(s, i);
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * TOML value state across lines: open brackets (a multi-line array or inline table) and an open multi-line
 * string. Lines inside either are the value's, never keys: an array of requirement strings such as
 * `"httpcore==1.*"` once read as a key `httpcore` (issue 29).
 */
interface TomlState {
  depth: number;
  multi: '"""' | "'''" | null;
}

/** Advances `st` over `text` (a line, or the value part of one). */
function scanToml(text: string, st: TomlState): void {
  for (let i = 0; i < text.length; i++) {
    if (st.multi) {
      if (st.multi === '"""' && text[i] === '\\') i++;
      else if (text.startsWith(st.multi, i)) {
        i += 2;
        st.multi = null;
      }
      continue;
    }
    const c = text[i];
    if (c === '#') return;
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      st.multi = text.slice(i, i + 3) as TomlState['multi'];
      i += 2;
    } else if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (c === '"' && text[i] === '\\') i++;
    } else if (c === '[' || c === '{') st.depth++;
    else if (c === ']' || c === '}') st.depth = Math.max(0, st.depth - 1);
  }
}

/** A TOML key: bare (A-Za-z0-9_-) or quoted parts, dotted, then `=` (never `==`). */
const TOML_KEY = String.raw`((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=(?!=)`;
const TOML_TOP = new RegExp(String.raw`^(?:\[\[?\s*([^\]]+?)\s*\]\]?|${TOML_KEY})`);
const TOML_NESTED = new RegExp(String.raw`^\s*${TOML_KEY}`);
const unquote = (k: string) => k.replace(/^["']|["']$/g, '');

/**
 * Line-oriented formats: a top-level key starts at column 0; nested keys are the indented `key:` / `key =`
 * lines. Only a line that can hold a key is read as one: never a line inside a TOML multi-line array,
 * inline table or string, nor one inside a YAML block scalar (`key: |`), whose text is a value.
 */
function lineEntries(s: string, language: 'yaml' | 'toml'): Entry[] | null {
  const top = language === 'yaml' ? /^(?!-|#|\s)(["']?)([^:#"'\s][^:#]*?)\1\s*:(\s|$)/ : TOML_TOP;
  const nested = language === 'yaml' ? /^\s+(["']?)([^:#"'\s-][^:#]*?)\1\s*:(\s|$)/ : TOML_NESTED;
  const lines = s.split('\n');
  const out: Entry[] = [];
  let offset = 0;
  let pendingComment = -1; // offset of a comment block directly above the next key
  let table: Entry | null = null;
  let inTable = false; // TOML: after a [table] header, `key = value` lines are the table's
  let childIndent = -1; // YAML: the indentation of an entry's first nested key; deeper keys are not its children
  const toml: TomlState = { depth: 0, multi: null };
  let blockIndent = -1; // YAML: indentation of the key whose block scalar (`|`, `>`) the lines below may belong to
  for (const line of lines) {
    const indent = /^\s*/.exec(line)![0].length;
    const inValue = language === 'toml' ? toml.depth > 0 || toml.multi !== null : blockIndent >= 0 && (!line.trim() || indent > blockIndent);
    if (inValue) {
      if (language === 'toml') scanToml(line, toml);
      offset += line.length + 1;
      continue;
    }
    blockIndent = -1;
    const m = top.exec(line);
    const key = m ? (language === 'yaml' ? m[2] : (m[1] ?? m[2])) : null;
    const header = language === 'toml' && line.startsWith('[') && !!m?.[1];
    if (key && (language === 'yaml' || header || !inTable)) {
      if (header) inTable = true;
      const start = pendingComment >= 0 ? pendingComment : offset;
      if (out.length) out[out.length - 1].end = start - 1;
      table = { start, end: s.length, key: unquote(key), children: [] };
      childIndent = -1;
      out.push(table);
    } else if (table) {
      const n = nested.exec(line);
      const child = n ? (language === 'yaml' ? n[2] : n[1]) : null;
      if (child && language === 'yaml' && childIndent < 0) childIndent = indent;
      if (child && (language === 'toml' || indent === childIndent) && table.children.length < 50) table.children.push(unquote(child));
    }
    if (language === 'toml' && !header) {
      const k = TOML_NESTED.exec(line);
      scanToml(k ? line.slice(k[0].length) : line, toml);
    }
    if (language === 'yaml' && /:\s*[|>][-+0-9]*\s*(#.*)?$/.test(line)) blockIndent = indent;
    if (/^\s*#/.test(line)) {
      if (pendingComment < 0) pendingComment = offset;
    } else pendingComment = -1;
    offset += line.length + 1;
  }
  if (!out.length) return null;
  out[0].start = 0; // a preamble (comments, `---`) goes with the first key
  return out;
}

export function chunkConfig(path: string, source: string, language: Language, revision: string, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Chunk[] | null {
  const entries = language === 'json' ? jsonEntries(source) : language === 'yaml' || language === 'toml' ? lineEntries(source, language) : null;
  if (!entries || entries.length === 0) return null;
  // Tile the file: the first entry from offset 0, the last to the end (closing brace, trailing comments).
  entries[0].start = 0;
  entries[entries.length - 1].end = source.replace(/\s+$/, '').length;
  for (let i = 0; i + 1 < entries.length; i++) {
    // An entry ends where the next begins (its separator and newline included, trailing spaces not).
    let e = entries[i + 1].start;
    while (e > entries[i].start && /\s/.test(source[e - 1])) e--;
    entries[i].end = e;
  }
  const role = fileRole(path, source) ?? 'config';
  const lineOf = lineNumbers(source);
  const byteAt = byteOffsets(source);
  // Over-long values are cut at their nested keys' lines (every line start is a candidate, nested keys first).
  const cutDepth = (span: { start: number; end: number }) => {
    const m = new Map<number, number>();
    let line = lineOf(span.start) - 1;
    for (let i = span.start; i < span.end; i++) {
      if (source[i] !== '\n') continue;
      line++;
      const rest = source.slice(i + 1, i + 200);
      const indent = /^\s*/.exec(rest)![0].length;
      m.set(line, /^\s*("[^"]*"\s*:|[A-Za-z0-9_.-]+\s*[:=])/.test(rest) ? indent : 1000 + indent);
    }
    return m;
  };
  return chunksFromParts(source, boundSpans(source, entries, cutDepth, limits), { path, revision, language, lineOf, byteAt, maxTokens: limits.maxTokens }, (b) => {
    const e = entries[b.of];
    return { symbols: [e.key, ...new Set(e.children.map((c) => `${e.key}.${c}`))], references: [], role };
  });
}
