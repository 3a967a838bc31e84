import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from 'web-tree-sitter';
import { Task } from '../../schemas/task.ts';
import type { Call, CallsLanguage } from '../../schemas/exec.ts';
import { FUNCTIONAL_LANGUAGES, type FunctionalLanguage } from '../../core/languages/functional.ts';
import { parserForGrammar } from '../languages/grammar.ts';
import { maxRecordBytes, normalizeNewlines, readBytes, readJsonl, type JsonlRecord } from './jsonlReader.ts';
import { invalidField, type ImportRejection, type ImportResult } from './types.ts';

/**
 * MultiPL-E's languages (its `language` key), a row each: which of ours it is and which form its test program
 * takes. MultiPL-E's tests are code appended to the candidate's own program; ours are `calls` data the judge
 * compares outside the candidate (docs/oracle.md), so each test program is read as a syntax tree and converted
 * to calls, and a program that is anything but the format's plain sequence of cases is rejected, never run.
 * Adding a language of the same test forms is a row here.
 */
export const MULTIPL_E_LANGUAGES = {
  js: { language: 'javascript', tests: 'assert-calls' },
  ts: { language: 'typescript', tests: 'assert-calls' },
  go: { language: 'go', tests: 'go-table' },
} as const satisfies Record<string, { language: CallsLanguage; tests: 'assert-calls' | 'go-table' }>;
type Row = (typeof MULTIPL_E_LANGUAGES)[keyof typeof MULTIPL_E_LANGUAGES];

/** MultiPL-E names Go `go_test.go` (the file its evaluator writes); the row is `go`. */
const rowKey = (language: string) => (language === 'go_test.go' ? 'go' : language);

class Unconvertible extends Error {}

/** A record's fields and what went wrong with one. */
type Failure = { field: string; code: string; message: string };

/**
 * MultiPL-E input as tasks: the query is the prompt's comment, the code the prompt's function (its description
 * comment and the test harness's package and unused imports removed) completed with a solution, and the tests the
 * program's cases as calls. MultiPL-E ships no solutions: a record's solution is its `canonical_solution`, else
 * the first completion that MultiPL-E's own evaluator ran to status OK (its `.results.json` files: `results[i]
 * .program` is prompt + completion + "\n" + tests); a record with neither is rejected (nothing to verify). The
 * gate runs every canonical again, so a result file's OK is where a solution comes from, not its verdict.
 * `input` is a JSON-lines file (.jsonl, .jsonl.gz), one problem's .json / .json.gz file as MultiPL-E writes
 * them, or a directory of either (read recursively).
 */
export async function importMultiplE(input: string, dataset = 'multipl-e'): Promise<ImportResult> {
  const tasks: ImportResult['tasks'] = [];
  const rejections: ImportRejection[] = [];
  const files = inputFiles(input);
  for (const file of files) {
    let read: ReturnType<typeof readRecords>;
    try {
      read = readRecords(file);
    } catch (e) {
      // A file given alone fails the import with its line; one of a directory's is a rejection, the rest are read.
      if (file === input) throw e;
      rejections.push({ file, line: 1, field: '(file)', code: 'UNREADABLE_FILE', message: (e as Error).message.split('\n')[0] });
      continue;
    }
    rejections.push(...read.rejections);
    for (const { line, value } of read.records) {
      const got = await importRecord(value, dataset, line);
      if ('task' in got) tasks.push({ task: got.task, file, line });
      else rejections.push({ file, line, ...got } satisfies ImportRejection);
    }
  }
  return { tasks, rejections };
}

async function importRecord(value: Record<string, unknown>, dataset: string, line: number): Promise<{ task: Task } | (Failure & { task_id: string })> {
  const name = typeof value.name === 'string' && value.name ? value.name : `${dataset}_${line}`;
  const key = rowKey(typeof value.language === 'string' ? value.language : '');
  // The language in the id: MultiPL-E names a problem alike in every language, and one pool may hold several.
  const task_id = `${key || 'unknown'}_${name}`;
  const row: Row | undefined = Object.hasOwn(MULTIPL_E_LANGUAGES, key) ? MULTIPL_E_LANGUAGES[key as keyof typeof MULTIPL_E_LANGUAGES] : undefined;
  if (!row) return { task_id, field: 'language', code: 'UNKNOWN_LANGUAGE', message: `${JSON.stringify(value.language ?? null)} is not one this importer converts (known: js, ts, go_test.go)` };
  const missing = (['prompt', 'tests'] as const).find((k) => typeof value[k] !== 'string' || !(value[k] as string).trim());
  if (missing) return { task_id, field: missing, code: 'INVALID_FIELD', message: 'missing or not a string' };
  const solution = solutionOf(value, value.prompt as string, value.tests as string);
  if ('code' in solution) return { task_id, ...solution };
  const got = await convert(row, normalizeNewlines(value.prompt as string), normalizeNewlines(solution.text), normalizeNewlines(value.tests as string));
  if ('field' in got) return { task_id, ...got };
  const parsed = Task.safeParse({
    task_id, language: row.language, query: got.query, function_name: got.fn, canonical: got.code,
    tests: { kind: 'calls', calls: got.calls }, distractors: [],
    source: { dataset, ...(typeof value.original === 'string' ? { ref: value.original } : {}) },
    // Where the canonical came from, when it is not the record's own canonical_solution.
    ...(solution.from === 'canonical_solution' ? {} : { metadata: { solution: solution.from } }),
  });
  return parsed.success ? { task: parsed.data } : { task_id, ...invalidField(parsed.error) };
}

/** The record's solution and the field it came from (`canonical_solution` or `results[i]`), or why there is none. */
function solutionOf(value: Record<string, unknown>, prompt: string, tests: string): { text: string; from: string } | Failure {
  const own = value.canonical_solution;
  if (typeof own === 'string' && own.trim()) return { text: own, from: 'canonical_solution' };
  const none = (message: string): Failure => ({ field: 'canonical_solution', code: 'NO_SOLUTION', message });
  if (Array.isArray(value.results)) {
    const results = value.results as unknown[];
    for (let i = 0; i < results.length; i++) {
      const r = results[i] as { status?: unknown; program?: unknown } | null;
      const program = r?.status === 'OK' && typeof r.program === 'string' ? r.program : null;
      // MultiPL-E's program is prompt + completion + "\n" + tests; one that is not was not run on this record.
      if (program === null || !program.startsWith(prompt) || !program.endsWith(`\n${tests}`)) continue;
      const text = program.slice(prompt.length, program.length - tests.length - 1);
      if (text.trim()) return { text, from: `results[${i}]` };
    }
    return none(`none of the ${results.length} results of MultiPL-E's evaluator passed (status OK, program = prompt + completion + tests): no completion to take as the canonical`);
  }
  if (Array.isArray(value.completions)) return none(`${value.completions.length} completions not yet run: run MultiPL-E's evaluator on them and import its .results.json files (a completion that passed becomes the canonical)`);
  return none("missing: MultiPL-E ships no solutions; import the .results.json files of MultiPL-E's evaluator, or add the completion that passes the tests as canonical_solution");
}

/** A JSON-lines file, or one problem's .json file (MultiPL-E writes one object per file, indented). */
function readRecords(file: string): { records: JsonlRecord[]; rejections: ImportRejection[] } {
  if (!/\.json(\.gz)?$/i.test(file)) return readJsonl(file);
  const reject = (code: string, message: string) => ({ records: [], rejections: [{ file, line: 1, field: '(record)', code, message }] });
  const bytes = readBytes(file);
  if (bytes.length > maxRecordBytes()) return reject('RECORD_TOO_LARGE', `file of ${bytes.length} bytes is over the ${maxRecordBytes()}-byte record limit (EXECRETRIEVAL_MAX_RECORD_BYTES): skipped unread`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    return reject('INVALID_JSON', (e as Error).message.split('\n')[0]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return reject('INVALID_JSON', 'not a JSON object');
  return { records: [{ line: 1, value: value as Record<string, unknown> }], rejections: [] };
}

const RECORD_FILE = /\.(jsonl|json)(\.gz)?$/i;
/** What a directory given to this importer must hold (cli/options.ts checkInput). */
export const MULTIPL_E_FILES = { files: RECORD_FILE, recursive: true, name: '.jsonl / .json / .results.json (.gz)' };

/**
 * A file as given; a directory's record files, recursively, in name order. MultiPL-E keeps a problem's
 * completions (X.json) beside its results (X.results.json): the completions file is skipped where the results
 * file is there, so a problem is read once, with its solutions.
 */
function inputFiles(input: string): string[] {
  if (!statSync(input).isDirectory()) return [input];
  // Relative paths, not Dirents: Dirent.parentPath is newer than the Node 20.6 this tool supports.
  const files = readdirSync(input, { recursive: true, encoding: 'utf8' })
    .map((rel) => join(input, rel))
    .filter((f) => RECORD_FILE.test(f) && statSync(f).isFile())
    .sort();
  const present = new Set(files);
  return files.filter((f) => {
    const m = /^(.*)(?<!\.results)\.json(\.gz)?$/i.exec(f);
    return !m || !['.results.json', '.results.json.gz'].some((x) => present.has(m[1] + x));
  });
}

async function convert(row: Row, prompt: string, solution: string, tests: string): Promise<Failure | { query: string; fn: string; code: string; calls: Call[] }> {
  const lang: FunctionalLanguage = FUNCTIONAL_LANGUAGES[row.language];
  const parser = await parserForGrammar(lang.grammar);
  const program = parser.parse(`${prompt}${solution}`)!.rootNode;
  if (program.hasError) return { field: 'canonical_solution', code: 'CODE_DOES_NOT_PARSE', message: `the prompt completed by its solution is not a ${row.language} program (syntax error near line ${firstError(program)})` };
  const fnNode = program.namedChildren.find((n) => n?.type === 'function_declaration');
  const fn = fnNode?.childForFieldName('name')?.text;
  if (!fnNode || !fn) return { field: 'prompt', code: 'NO_FUNCTION', message: 'the prompt declares no function at the top level' };
  const query = commentText(program, fnNode);
  if (!query) return { field: 'prompt', code: 'NO_QUERY', message: `no comment describes ${fn}() before its declaration` };
  const testTree = parser.parse(tests)!.rootNode;
  if (testTree.hasError) return { field: 'tests', code: 'TESTS_NOT_CONVERTIBLE', message: `the test program does not parse (near line ${firstError(testTree)})` };
  try {
    const calls = row.tests === 'go-table' ? goTableCalls(testTree, fn) : assertCalls(testTree, fn);
    if (!calls.length) throw new Unconvertible('the test program has no case');
    return { query, fn, code: row.tests === 'go-table' ? goCode(program, fnNode) : program.text.slice(fnNode.startIndex).trimEnd() + '\n', calls };
  } catch (e) {
    if (!(e instanceof Unconvertible)) throw e;
    return { field: 'tests', code: 'TESTS_NOT_CONVERTIBLE', message: e.message };
  }
}

const firstError = (n: Node): number => {
  const bad = n.descendantsOfType('ERROR')[0] ?? n.descendantsOfType('MISSING')[0] ?? n;
  return bad.startPosition.row + 1;
};

/** The `//` comment lines right above the function, without their markers: MultiPL-E's rendering of the docstring. */
function commentText(program: Node, fnNode: Node): string {
  const lines: string[] = [];
  for (let n = fnNode.previousNamedSibling; n?.type === 'comment'; n = n.previousNamedSibling) lines.unshift(n.text.replace(/^\/\/ ?/, ''));
  return lines.join('\n').trim();
}

/**
 * The Go snippet: the imports its code still uses (MultiPL-E's `testing` never is), then the function and whatever
 * the solution declares after it (helpers); no package clause (the harness adds its own).
 */
function goCode(program: Node, fnNode: Node): string {
  const decls = program.namedChildren.filter((n) => n!.startIndex >= fnNode.startIndex) as Node[];
  const used = new Set(decls.flatMap((d) => d.descendantsOfType(['selector_expression', 'qualified_type'])).map((s) => (s!.type === 'qualified_type' ? s!.childForFieldName('package') : s!.childForFieldName('operand'))?.text));
  const paths = program.descendantsOfType('import_spec').map((s) => s!.childForFieldName('path')!.text).filter((p) => used.has(p.slice(1, -1).split('/').pop()));
  const head = paths.length === 0 ? '' : paths.length === 1 ? `import ${paths[0]}\n\n` : `import (\n${paths.map((p) => `\t${p}\n`).join('')})\n\n`;
  return `${head}${program.text.slice(fnNode.startIndex).trimEnd()}\n`;
}

/** A node's text in an error message: one line, short. */
const quote = (n: Node) => JSON.stringify(n.text.replace(/\s+/g, ' ').slice(0, 80));
const at = (n: Node) => `line ${n.startPosition.row + 1}`;

/**
 * MultiPL-E's JS/TS program: `const assert = require('node:assert');`, `function test() { let candidate = f;
 * assert.deepEqual(candidate(...), expected); ... }` and `test();`. Every case is a literal call; anything else
 * in the program could change what passing means, so it is refused.
 */
function assertCalls(root: Node, fn: string): Call[] {
  let body: Node | null = null;
  for (const n of root.namedChildren) {
    if (!n || n.type === 'comment' || n.type === 'ambient_declaration') continue;
    if ((n.type === 'lexical_declaration' || n.type === 'variable_declaration') && /^(const|let|var)\s+assert\s*=\s*require\(\s*['"](node:)?assert['"]\s*\)\s*;?$/.test(n.text)) continue;
    if (n.type === 'function_declaration' && n.childForFieldName('name')?.text === 'test' && !body) body = n.childForFieldName('body');
    else if (n.type === 'expression_statement' && /^test\(\s*\)\s*;?$/.test(n.text)) continue;
    else throw new Unconvertible(`${at(n)}: ${quote(n)} is not part of MultiPL-E's test program (assert require, function test, test())`);
  }
  if (!body) throw new Unconvertible('no function test() { ... } in the test program');
  let alias: string | null = null;
  const calls: Call[] = [];
  for (const s of body.namedChildren) {
    if (!s || s.type === 'comment') continue;
    const decl = s.type === 'lexical_declaration' || s.type === 'variable_declaration' ? /^(?:const|let|var)\s+(\w+)\s*=\s*(\w+)\s*;?$/.exec(s.text) : null;
    if (decl && decl[2] === fn && alias === null) {
      alias = decl[1];
      continue;
    }
    const call = s.type === 'expression_statement' ? s.namedChild(0) : null;
    const callee = call?.type === 'call_expression' ? call.childForFieldName('function')?.text : undefined;
    const args = call?.childForFieldName('arguments')?.namedChildren.filter((a) => a?.type !== 'comment') as Node[] | undefined;
    const subject = args?.[0];
    const target = subject?.type === 'call_expression' ? subject.childForFieldName('function')?.text : undefined;
    if (!callee || !/^assert\.(deepEqual|deepStrictEqual|equal|strictEqual)$/.test(callee) || args!.length !== 2 || !(target === fn || (alias !== null && target === alias))) {
      throw new Unconvertible(`${at(s)}: ${quote(s)} is not assert.deepEqual(candidate(...), expected)`);
    }
    calls.push({ args: subject!.childForFieldName('arguments')!.namedChildren.filter((a) => a?.type !== 'comment').map((a) => jsValue(a!)), expected: jsValue(args![1]) });
  }
  return calls;
}

/** A JS literal as JSON data (`undefined` as null, as the calls harness reports it); anything computed is refused. */
function jsValue(n: Node): unknown {
  switch (n.type) {
    case 'number': return finite(n, Number(n.text.replace(/_/g, '')));
    case 'true': return true;
    case 'false': return false;
    case 'null': case 'undefined': return null;
    case 'string': return n.namedChildren.map((c) => (c!.type === 'escape_sequence' ? jsEscape(c!) : c!.text)).join('');
    case 'template_string':
      if (n.namedChildren.some((c) => c!.type === 'template_substitution')) break;
      return n.namedChildren.map((c) => (c!.type === 'escape_sequence' ? jsEscape(c!) : c!.text)).join('');
    case 'parenthesized_expression': return jsValue(n.namedChild(0)!);
    case 'array': return n.namedChildren.filter((c) => c!.type !== 'comment').map((c) => jsValue(c!));
    case 'unary_expression': {
      const op = n.childForFieldName('operator')?.text;
      const v = n.childForFieldName('argument');
      if ((op === '-' || op === '+') && v?.type === 'number') return finite(n, (op === '-' ? -1 : 1) * (jsValue(v) as number));
      break;
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const p of n.namedChildren) {
        if (p!.type === 'comment') continue;
        const k = p!.type === 'pair' ? p!.childForFieldName('key') : null;
        if (!k) throw new Unconvertible(`${at(p!)}: ${quote(p!)} is not a key: value pair`);
        out[k.type === 'string' ? (jsValue(k) as string) : k.type === 'number' ? String(Number(k.text)) : k.text] = jsValue(p!.childForFieldName('value')!);
      }
      return out;
    }
  }
  throw new Unconvertible(`${at(n)}: ${quote(n)} is not a literal (a test's arguments and expected value must be data)`);
}

function finite(n: Node, v: number): number {
  if (!Number.isFinite(v)) throw new Unconvertible(`${at(n)}: ${quote(n)} is not a finite number JSON can carry`);
  return v;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', 0: '\0', a: '\x07' };

/** `\n`, `\x41`, `\u0041`, `\u{1F600}`, `\"`; a line continuation is nothing. */
function jsEscape(n: Node): string {
  const body = n.text.slice(1);
  if (/^\r?\n/.test(body)) return '';
  if (/^(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})$/.test(body)) return String.fromCharCode(parseInt(body.slice(1), 16));
  if (/^u\{[0-9a-fA-F]+\}$/.test(body)) return String.fromCodePoint(parseInt(body.slice(2, -1), 16));
  return SIMPLE_ESCAPES[body] ?? body;
}

/**
 * MultiPL-E's Go program: one `func TestXxx(t *testing.T)` holding `candidate := f`, the `test` struct, a
 * `tests := []test{ { actual: candidate(...), expected: ... }, ... }` table and the loop comparing each case by
 * `fmt.Sprintf("%v", ...)`. The loop must be exactly that one: another comparison would mean other tests.
 */
function goTableCalls(root: Node, fn: string): Call[] {
  const funcs = root.namedChildren.filter((n) => n!.type !== 'comment' && n!.type !== 'package_clause' && n!.type !== 'import_declaration');
  const test = funcs.length === 1 && funcs[0]!.type === 'function_declaration' && /^Test/.test(funcs[0]!.childForFieldName('name')?.text ?? '') ? funcs[0]! : null;
  if (!test) throw new Unconvertible(`the test program must be one func TestXxx(t *testing.T), found ${funcs.map((n) => quote(n!)).join(', ') || 'nothing'}`);
  const stmts = (test.childForFieldName('body')?.namedChild(0)?.namedChildren ?? []).filter((s) => s!.type !== 'comment') as Node[];
  let alias: string | null = null;
  let table: Node | null = null;
  for (const s of stmts) {
    const short = s.type === 'short_var_declaration' ? /^(\w+)\s*:=\s*([\s\S]+)$/.exec(s.text) : null;
    if (short && short[2].trim() === fn && alias === null) alias = short[1];
    else if (short && short[1] === 'tests' && !table) table = s.childForFieldName('right')?.namedChild(0) ?? null;
    else if (s.type === 'type_declaration' && /^type\s+test\s+struct\s*\{\s*actual\s+interface\{\}\s+expected\s+interface\{\}\s*\}$/.test(s.text.replace(/\s+/g, ' ').replace(/\{ /g, '{').replace(/ \}/g, '}').replace(/\{\}/g, '{}'))) continue;
    else if (s.type === 'for_statement' && s.text.replace(/\s+/g, '') === GO_LOOP) continue;
    else throw new Unconvertible(`${at(s)}: ${quote(s)} is not part of MultiPL-E's Go test (candidate :=, type test struct, tests := []test{...}, its %v comparison loop)`);
  }
  if (!table || table.type !== 'composite_literal') throw new Unconvertible('no tests := []test{...} table in the test program');
  const calls: Call[] = [];
  for (const el of table.childForFieldName('body')?.namedChildren ?? []) {
    if (!el || el.type === 'comment') continue;
    const fields = new Map<string, Node>();
    for (const kv of el.namedChild(0)?.type === 'literal_value' ? el.namedChild(0)!.namedChildren : []) {
      if (kv?.type === 'keyed_element') fields.set(kv.namedChild(0)!.text, kv.namedChild(1)!.namedChild(0)!);
    }
    const actual = fields.get('actual');
    const expected = fields.get('expected');
    const target = actual?.type === 'call_expression' ? actual.childForFieldName('function')?.text : undefined;
    if (fields.size !== 2 || !expected || !(target === fn || (alias !== null && target === alias))) throw new Unconvertible(`${at(el)}: ${quote(el)} is not { actual: candidate(...), expected: ... }`);
    calls.push({ args: (actual!.childForFieldName('arguments')?.namedChildren ?? []).filter((a) => a!.type !== 'comment').map((a) => goValue(a!)), expected: goValue(expected) });
  }
  return calls;
}

/** MultiPL-E's comparison loop, whitespace removed. */
const GO_LOOP = 'fori,tc:=rangetests{t.Run(fmt.Sprintf("testnum%d",i),func(t*testing.T){iffmt.Sprintf("%v",tc.actual)!=fmt.Sprintf("%v",tc.expected){t.Errorf("expected\'%s\',got\'%s\'",tc.expected,tc.actual)}})}';

/** A Go literal as JSON data: slices and arrays as arrays, maps with string or integer keys as objects, nil as null. */
function goValue(n: Node): unknown {
  switch (n.type) {
    case 'int_literal': case 'float_literal': return finite(n, Number(n.text.replace(/_/g, '')));
    case 'true': return true;
    case 'false': return false;
    case 'nil': return null;
    case 'interpreted_string_literal': return n.namedChildren.map((c) => (c!.type === 'escape_sequence' ? goEscape(c!) : c!.text)).join('');
    case 'raw_string_literal': return n.text.slice(1, -1).replace(/\r/g, '');
    case 'literal_element': return goValue(n.namedChild(0)!);
    case 'parenthesized_expression': return goValue(n.namedChild(0)!);
    case 'unary_expression': {
      const op = n.childForFieldName('operator')?.text;
      const v = n.childForFieldName('operand');
      if ((op === '-' || op === '+') && (v?.type === 'int_literal' || v?.type === 'float_literal')) return finite(n, (op === '-' ? -1 : 1) * (goValue(v) as number));
      break;
    }
    case 'call_expression': {
      // A numeric conversion such as float64(3): the value is the literal's.
      const f = n.childForFieldName('function')?.text ?? '';
      const a = n.childForFieldName('arguments')?.namedChildren ?? [];
      if (/^(u?int(8|16|32|64)?|float(32|64)|byte|rune)$/.test(f) && a.length === 1) return goValue(a[0]!);
      break;
    }
    case 'composite_literal': case 'literal_value': {
      const type = n.type === 'composite_literal' ? n.childForFieldName('type') : null;
      const body = n.type === 'composite_literal' ? n.childForFieldName('body')! : n;
      const items = body.namedChildren.filter((c) => c!.type !== 'comment') as Node[];
      if (type?.type === 'map_type') {
        const out: Record<string, unknown> = {};
        for (const kv of items) {
          const key = kv.type === 'keyed_element' ? goValue(kv.namedChild(0)!) : undefined;
          if (typeof key !== 'string' && typeof key !== 'number') throw new Unconvertible(`${at(kv)}: ${quote(kv)} is not a map entry with a string or number key`);
          out[String(key)] = goValue(kv.namedChild(1)!);
        }
        return out;
      }
      if (type === null || type.type === 'slice_type' || type.type === 'array_type' || type.type === 'implicit_length_array_type') {
        if (items.some((c) => c.type === 'keyed_element')) break;
        return items.map(goValue);
      }
      break;
    }
  }
  throw new Unconvertible(`${at(n)}: ${quote(n)} is not a literal the calls harness can pass (numbers, strings, booleans, nil, slices, maps)`);
}

const GO_SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', a: '\x07', '\\': '\\', '"': '"', "'": "'" };

/** `\n`, `\x41`, `\101`, `\u0041`, `\U0001F600` (bytes taken as code points below 0x80 only: others are refused). */
function goEscape(n: Node): string {
  const body = n.text.slice(1);
  if (body in GO_SIMPLE_ESCAPES) return GO_SIMPLE_ESCAPES[body];
  if (/^(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})$/.test(body)) return String.fromCodePoint(parseInt(body.slice(1), 16));
  const byte = /^x[0-9a-fA-F]{2}$/.test(body) ? parseInt(body.slice(1), 16) : /^[0-7]{3}$/.test(body) ? parseInt(body, 8) : -1;
  if (byte >= 0 && byte < 0x80) return String.fromCharCode(byte);
  throw new Unconvertible(`${at(n)}: the escape ${n.text} is a raw byte, not text JSON can carry`);
}
