import { Task } from '../../schemas/task.ts';
import { describe, evalFieldSpec, parseFieldSpec, type FieldSpec } from '../../core/importers/fieldSpec.ts';
import { codeFacts, docstrings, docstringSpans } from '../python/astFacts.ts';
import { removeQueryDocstring } from '../../core/importers/docstringSplice.ts';
import { inferFunctionNames } from './functionName.ts';
import { normalizeNewlines, readJsonl } from './jsonlReader.ts';
import { invalidField, type ImportRejection, type ImportResult } from './types.ts';

/**
 * Which field of a foreign record holds what, each as a spec (core/importers/fieldSpec.ts): a dotted path, a
 * template such as `{prompt}{canonical_solution}`, or `docstring(...)`. `tests` holds either a list of assert
 * statements or one program that defines `check(candidate)` (then the function is `entry_point`, or
 * `function_name`).
 */
export interface FieldMapping {
  query: string;
  code: string;
  tests: string;
  id?: string;
  function_name?: string;
  entry_point?: string;
  setup?: string;
  domain?: string;
}

export const DEFAULT_MAPPING: FieldMapping = { query: 'query', code: 'code', tests: 'tests', id: 'task_id', function_name: 'function_name', entry_point: 'entry_point', setup: 'setup', domain: 'domain' };

/** Parses every spec of a mapping; a malformed one throws naming the target field. */
export function parseMapping(mapping: FieldMapping): Record<keyof FieldMapping, FieldSpec | undefined> {
  const out = {} as Record<keyof FieldMapping, FieldSpec | undefined>;
  for (const k of Object.keys(DEFAULT_MAPPING) as (keyof FieldMapping)[]) {
    const spec = mapping[k];
    try {
      out[k] = spec ? parseFieldSpec(spec) : undefined;
      if (out[k]?.kind === 'docstring' && k !== 'query') throw new Error(`docstring(...) builds the query only, not ${k}`);
    } catch (e) {
      throw new Error(`mapping ${k}: ${(e as Error).message}`);
    }
  }
  return out;
}

type Row = {
  line: number; task_id: string; code: string; fn?: string; entry?: string; tests: string[];
  suite: Record<string, unknown>; query: unknown; docstringOf?: string; domain?: string; dead?: boolean;
  metadata?: Record<string, string>;
};

/**
 * What became of the query's docstring in the code of a task whose query was taken from a docstring (task
 * `metadata.query_docstring`, carried into the release's query metadata): `removed` from the stored code,
 * `kept` (--keep-docstring, or a layout the splice refuses: `query_docstring_note` says why), or `not_in_code`
 * (the docstring came from text that is not the code's).
 */
export type QueryDocstring = 'removed' | 'kept' | 'not_in_code';

export interface MappedImportOptions {
  /** Keep the query's docstring in the stored code (default: removed, core/importers/docstringSplice.ts). */
  keepDocstring?: boolean;
}

/**
 * Any task JSONL (or .jsonl.gz) with a field mapping to the project's task schema; `dataset` names the source in
 * each task. Each record's code must parse and define the function at module level: otherwise the record is
 * rejected with `CODE_DOES_NOT_PARSE` or `ENTRY_POINT_NOT_DEFINED` (a mapping that takes only a solution body
 * shows up here, not later as unparseable canonicals).
 */
export async function importMappedJsonl(file: string, mapping: FieldMapping, dataset = 'jsonl', opts: MappedImportOptions = {}): Promise<ImportResult> {
  const specs = parseMapping(mapping);
  const name = (k: keyof FieldMapping) => (specs[k] ? describe(specs[k]!) : k);
  const { records, rejections } = readJsonl(file);
  const rows: Row[] = [];
  for (const { line, value } of records) {
    let task_id = `${dataset}_${line}`;
    const bad = (field: string, message: string, code = 'INVALID_FIELD') => rejections.push({ file, line, task_id, field, code, message });
    /** The value a target field's spec yields; on a template error the record is rejected (returns null). */
    const get = (k: keyof FieldMapping): { v: unknown; docstringOf?: string } | null => {
      const spec = specs[k];
      if (!spec) return { v: undefined };
      const r = evalFieldSpec(spec, value);
      if ('error' in r) { bad(name(k), r.error); return null; }
      if ('docstringOf' in r) return { v: undefined, docstringOf: normalizeNewlines(r.docstringOf) };
      return { v: r.value };
    };
    const id = get('id');
    if (!id) continue;
    if (id.v !== undefined && id.v !== null) task_id = String(id.v);
    // In this order, stopping at the first field whose spec fails (one rejection per record).
    const v: Partial<Record<keyof FieldMapping, { v: unknown; docstringOf?: string }>> = {};
    if (!(['code', 'tests', 'function_name', 'entry_point', 'setup', 'domain', 'query'] as const).every((k) => (v[k] = get(k) ?? undefined))) continue;
    const { code, tests, function_name: fnV, entry_point: entryV, setup: setupV, domain: domainV, query } = v as Required<typeof v>;
    if (typeof code.v !== 'string' || !code.v.trim()) { bad(name('code'), 'missing or not a string'); continue; }
    const fn = typeof fnV.v === 'string' && fnV.v ? fnV.v : undefined;
    const entry = typeof entryV.v === 'string' && entryV.v ? entryV.v : undefined;
    let suite: Record<string, unknown>;
    let testList: string[];
    if (Array.isArray(tests.v) && tests.v.length && tests.v.every((t) => typeof t === 'string')) {
      testList = (tests.v as string[]).map(normalizeNewlines);
      suite = { kind: 'asserts', tests: testList, ...(typeof setupV.v === 'string' && setupV.v.trim() ? { setup: normalizeNewlines(setupV.v) } : {}) };
    } else if (typeof tests.v === 'string' && tests.v.trim()) {
      if (!/^\s*def\s+check\s*\(/m.test(tests.v)) { bad(name('tests'), 'a test program must define check(candidate)'); continue; }
      const ep = entry ?? fn;
      if (!ep) { bad(name('entry_point'), 'a check(candidate) program needs an entry point'); continue; }
      testList = [];
      suite = { kind: 'check', program: normalizeNewlines(tests.v), entry_point: ep };
    } else {
      bad(name('tests'), 'must be a non-empty list of assert statements or a check(candidate) program');
      continue;
    }
    rows.push({
      line, task_id, code: normalizeNewlines(code.v), fn: fn ?? (suite.kind === 'check' ? (suite.entry_point as string) : undefined),
      entry, tests: testList, suite, query: query.v, docstringOf: query.docstringOf, ...(typeof domainV.v === 'string' ? { domain: domainV.v } : {}),
    });
  }
  const reject = (r: Row, field: string, code: string, message: string) => {
    rejections.push({ file, line: r.line, task_id: r.task_id, field, code, message } satisfies ImportRejection);
    r.dead = true;
  };

  // The code must parse and define the function it is imported for.
  const facts = await codeFacts(rows.map((r) => r.code));
  rows.forEach((r, i) => {
    const f = facts[i];
    if (!f.parses) return reject(r, name('code'), 'CODE_DOES_NOT_PARSE', `${f.syntax_error} (the mapping gives code that is not a Python module; a solution body needs its signature, e.g. code={prompt}{canonical_solution})`);
    const wanted = [...new Set([r.fn, r.suite.kind === 'check' ? (r.suite.entry_point as string) : undefined].filter((n): n is string => Boolean(n)))];
    const missing = wanted.find((n) => !f.top_level_functions.includes(n));
    if (missing) reject(r, name('code'), 'ENTRY_POINT_NOT_DEFINED', `does not define ${missing}() at module level (defines: ${f.top_level_functions.join(', ') || 'none'})`);
  });

  const needName = rows.filter((r) => !r.dead && r.fn === undefined);
  const names = await inferFunctionNames(needName.map((r) => ({ code: r.code, tests: r.tests })));
  needName.forEach((r, i) => {
    const n = names[i];
    if ('name' in n) r.fn = n.name;
    else reject(r, name('tests'), 'NO_FUNCTION_NAME', n.error);
  });

  const needDoc = rows.filter((r) => !r.dead && r.docstringOf !== undefined);
  const docs = await docstrings(needDoc.map((r) => ({ code: r.docstringOf!, target: r.fn })));
  needDoc.forEach((r, i) => {
    const d = docs[i];
    if (d.syntax_error) reject(r, name('query'), 'NO_DOCSTRING', `cannot take a docstring, the source does not parse: ${d.syntax_error}`);
    else if (!d.docstring) reject(r, name('query'), 'NO_DOCSTRING', `no docstring for ${r.fn}() in ${describe((specs.query as { of: FieldSpec }).of)}`);
    else r.query = d.docstring;
  });

  // The query out of the code: a snippet that carries the query word for word makes finding the task trivial.
  const withDoc = needDoc.filter((r) => !r.dead);
  if (opts.keepDocstring) {
    for (const r of withDoc) r.metadata = { query_docstring: 'kept', query_docstring_note: '--keep-docstring' };
  } else {
    const spans = await docstringSpans(withDoc.map((r) => ({ code: r.code, target: r.fn })));
    const plans = withDoc.map((r, i) => removeQueryDocstring(r.code, String(r.query), spans[i]));
    // The spliced code must still parse and define the function (the gate then checks that it still passes).
    const after = await codeFacts(plans.map((p, i) => (p.removed ? p.code : withDoc[i].code)));
    withDoc.forEach((r, i) => {
      const p = plans[i];
      if (!p.removed) {
        const absent = p.reason === 'the code has no docstring' || p.reason === 'the code\'s docstring is not the query';
        r.metadata = absent ? { query_docstring: 'not_in_code' } : { query_docstring: 'kept', query_docstring_note: p.reason };
      } else if (!after[i].parses || (r.fn !== undefined && !after[i].top_level_functions.includes(r.fn))) {
        r.metadata = { query_docstring: 'kept', query_docstring_note: `without it the code does not parse or define ${r.fn}()` };
      } else {
        r.code = p.code;
        r.metadata = { query_docstring: 'removed' };
      }
    });
  }

  const tasks: ImportResult['tasks'] = [];
  for (const r of rows) {
    if (r.dead) continue;
    const parsed = Task.safeParse({
      task_id: r.task_id, query: r.query, function_name: r.fn, canonical: r.code, tests: r.suite,
      ...(r.domain !== undefined ? { domain: r.domain } : {}), distractors: [], source: { dataset, ref: r.task_id },
      ...(r.metadata ? { metadata: r.metadata } : {}),
    });
    if (parsed.success) tasks.push({ task: parsed.data, file, line: r.line });
    else {
      const invalid = invalidField(parsed.error);
      // The query's field is named as the user mapped it.
      const field = parsed.error.issues[0].path[0] === 'query' ? name('query') : invalid.field;
      rejections.push({ file, line: r.line, task_id: r.task_id, ...invalid, field });
    }
  }
  rejections.sort((a, b) => a.line - b.line);
  return { tasks, rejections };
}
