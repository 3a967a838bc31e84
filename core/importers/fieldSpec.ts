/**
 * How a target field of the task schema is built from a foreign record (`import jsonl --map target=SPEC`):
 * - `path`: a field, dotted paths reach into nested objects (`prompt.text`); the value is taken as it is;
 * - a template with `{path}` placeholders (`{prompt}{canonical_solution}`, `mbpp_{task_id}`): the fields'
 *   values concatenated with the literal text between them; `{{` and `}}` are literal braces;
 * - `docstring(SPEC)`: the docstring of the Python source SPEC yields (Python's `ast` extracts it, so the
 *   importer resolves it in one batch; see activities/importers/mappedJsonl.ts).
 */
export type FieldSpec =
  | { kind: 'path'; path: string }
  | { kind: 'template'; parts: ({ text: string } | { path: string })[] }
  | { kind: 'docstring'; of: FieldSpec };

const PATH = /^[A-Za-z_][\w-]*(\.[\w-]+)*$/;

/** Parses a spec; a malformed one throws with a message that says what is wrong. */
export function parseFieldSpec(spec: string): FieldSpec {
  const s = spec.trim();
  const doc = /^docstring\((.*)\)$/s.exec(s);
  if (doc) {
    const of = parseFieldSpec(doc[1]);
    if (of.kind === 'docstring') throw new Error(`"${spec}": docstring(...) cannot be nested`);
    return { kind: 'docstring', of };
  }
  if (!s.includes('{') && !s.includes('}')) {
    if (!PATH.test(s)) throw new Error(`"${spec}" is not a field path (letters, digits, _ and - separated by dots)`);
    return { kind: 'path', path: s };
  }
  const parts: ({ text: string } | { path: string })[] = [];
  let text = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if ((c === '{' || c === '}') && s[i + 1] === c) { text += c; i++; continue; }
    if (c === '}') throw new Error(`"${spec}": unmatched "}" at character ${i + 1} (write }} for a literal brace)`);
    if (c !== '{') { text += c; continue; }
    const close = s.indexOf('}', i);
    if (close < 0) throw new Error(`"${spec}": unclosed "{" at character ${i + 1}`);
    const path = s.slice(i + 1, close).trim();
    if (!PATH.test(path)) throw new Error(`"${spec}": "{${path}}" is not a field path`);
    if (text) parts.push({ text });
    text = '';
    parts.push({ path });
    i = close;
  }
  if (text) parts.push({ text });
  return { kind: 'template', parts };
}

/** The value at a dotted path, or undefined. */
export function getPath(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export type SpecValue =
  | { value: unknown }
  /** A template placeholder whose field is missing or not text. */
  | { error: string }
  /** docstring(...): the source to take the docstring of. */
  | { docstringOf: string };

/** Evaluates a spec against one record. A path yields its raw value (undefined when absent). */
export function evalFieldSpec(spec: FieldSpec, record: Record<string, unknown>): SpecValue {
  if (spec.kind === 'path') return { value: getPath(record, spec.path) };
  if (spec.kind === 'docstring') {
    const inner = evalFieldSpec(spec.of, record);
    if ('error' in inner) return inner;
    const v = (inner as { value: unknown }).value;
    return typeof v === 'string' ? { docstringOf: v } : { error: `${describe(spec.of)}: missing or not a string` };
  }
  let out = '';
  for (const p of spec.parts) {
    if ('text' in p) { out += p.text; continue; }
    const v = getPath(record, p.path);
    if (typeof v === 'string') out += v;
    else if (typeof v === 'number' || typeof v === 'boolean') out += String(v);
    else return { error: `{${p.path}}: ${v === undefined || v === null ? 'missing' : 'not text'}` };
  }
  return { value: out };
}

/** The spec written back (for messages and the field a rejection names). */
export function describe(spec: FieldSpec): string {
  if (spec.kind === 'path') return spec.path;
  if (spec.kind === 'docstring') return `docstring(${describe(spec.of)})`;
  return spec.parts.map((p) => ('text' in p ? p.text.replace(/[{}]/g, (c) => c + c) : `{${p.path}}`)).join('');
}
