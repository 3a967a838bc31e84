import { Task } from '../../schemas/task.ts';
import { inferFunctionNames } from './functionName.ts';
import { normalizeNewlines, readJsonl } from './jsonlReader.ts';
import { invalidField, type ImportResult } from './types.ts';

/**
 * Which field of a foreign record holds what. `tests` holds either a list of assert statements or one program
 * that defines `check(candidate)` (HumanEval style; then the function is `entry_point`, or `function_name`).
 * Dotted paths reach into nested objects (`prompt.text`).
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

function get(obj: Record<string, unknown>, path: string | undefined): unknown {
  if (!path) return undefined;
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Any task JSONL with a field mapping to the project's task schema; `dataset` names the source in each task. */
export async function importMappedJsonl(file: string, mapping: FieldMapping, dataset = 'jsonl'): Promise<ImportResult> {
  const { records, rejections } = readJsonl(file);
  type Row = { line: number; task: Record<string, unknown>; needsName: boolean; tests: string[] };
  const rows: Row[] = [];
  for (const { line, value } of records) {
    const rawId = get(value, mapping.id);
    const task_id = rawId === undefined || rawId === null ? `${dataset}_${line}` : String(rawId);
    const bad = (field: string, message: string) => rejections.push({ file, line, task_id, field, code: 'INVALID_FIELD', message });
    const code = get(value, mapping.code);
    const tests = get(value, mapping.tests);
    if (typeof code !== 'string') { bad(mapping.code, 'missing or not a string'); continue; }
    const name = get(value, mapping.function_name);
    const entry = get(value, mapping.entry_point);
    let suite: Record<string, unknown>;
    let testList: string[];
    if (Array.isArray(tests) && tests.length && tests.every((t) => typeof t === 'string')) {
      testList = tests.map(normalizeNewlines);
      const setup = get(value, mapping.setup);
      suite = { kind: 'asserts', tests: testList, ...(typeof setup === 'string' && setup.trim() ? { setup: normalizeNewlines(setup) } : {}) };
    } else if (typeof tests === 'string' && tests.trim()) {
      if (!/^\s*def\s+check\s*\(/m.test(tests)) { bad(mapping.tests, 'a test program must define check(candidate)'); continue; }
      const ep = typeof entry === 'string' ? entry : typeof name === 'string' ? name : undefined;
      if (!ep) { bad(mapping.entry_point ?? 'entry_point', 'a check(candidate) program needs an entry point'); continue; }
      testList = [];
      suite = { kind: 'check', program: normalizeNewlines(tests), entry_point: ep };
    } else {
      bad(mapping.tests, 'must be a non-empty list of assert statements or a check(candidate) program');
      continue;
    }
    const fn = typeof name === 'string' ? name : suite.kind === 'check' ? (suite.entry_point as string) : undefined;
    const domain = get(value, mapping.domain);
    rows.push({
      line, tests: testList, needsName: fn === undefined,
      task: {
        task_id, query: get(value, mapping.query), function_name: fn, canonical: normalizeNewlines(code), tests: suite,
        ...(typeof domain === 'string' ? { domain } : {}), distractors: [], source: { dataset, ref: task_id },
      },
    });
  }
  const need = rows.filter((r) => r.needsName);
  const names = await inferFunctionNames(need.map((r) => ({ code: r.task.canonical as string, tests: r.tests })));
  need.forEach((r, i) => {
    const n = names[i];
    if ('name' in n) r.task.function_name = n.name;
    else {
      rejections.push({ file, line: r.line, task_id: r.task.task_id as string, field: mapping.tests, code: 'NO_FUNCTION_NAME', message: n.error });
      r.task.function_name = null;
    }
  });
  const tasks: ImportResult['tasks'] = [];
  for (const r of rows) {
    if (r.task.function_name === null) continue;
    const parsed = Task.safeParse(r.task);
    if (parsed.success) tasks.push({ task: parsed.data, file, line: r.line });
    else {
      const invalid = invalidField(parsed.error);
      // The query's field is named as the user mapped it.
      const field = parsed.error.issues[0].path[0] === 'query' ? mapping.query : invalid.field;
      rejections.push({ file, line: r.line, task_id: r.task.task_id as string, ...invalid, field });
    }
  }
  rejections.sort((a, b) => a.line - b.line);
  return { tasks, rejections };
}
