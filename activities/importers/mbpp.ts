import { Task } from '../../schemas/task.ts';
import { inferFunctionNames } from './functionName.ts';
import { normalizeNewlines, readJsonl } from './jsonlReader.ts';
import { invalidField, type ImportResult } from './types.ts';

/**
 * MBPP (Austin et al., 2021) JSONL to tasks: `text` is the query, `code` the canonical, `test_list` the assert
 * suite and `test_setup_code` its setup (run after the code, before each test); the function name comes from
 * the tests (the called name the code defines). `\r\n` becomes `\n`. Ids: `mbpp_<task_id>`.
 * `challenge_test_list` is not used (11 records have one; the paper's suites are the 3 asserts).
 */
export async function importMbpp(file: string): Promise<ImportResult> {
  const { records, rejections } = readJsonl(file);
  const rows: { line: number; id: string; text: unknown; code: string; tests: string[]; setup: string }[] = [];
  for (const { line, value: v } of records) {
    const id = `mbpp_${String(v.task_id ?? line)}`;
    const bad = (field: string, message: string) => rejections.push({ file, line, task_id: id, field, code: 'INVALID_FIELD', message });
    if (typeof v.code !== 'string' || !v.code.trim()) { bad('code', 'missing or not a string'); continue; }
    if (!Array.isArray(v.test_list) || v.test_list.length === 0 || !v.test_list.every((t) => typeof t === 'string')) {
      bad('test_list', 'must be a non-empty list of strings');
      continue;
    }
    if (v.test_setup_code != null && typeof v.test_setup_code !== 'string') { bad('test_setup_code', 'not a string'); continue; }
    rows.push({
      line, id, text: v.text,
      code: normalizeNewlines(v.code),
      tests: (v.test_list as string[]).map(normalizeNewlines),
      setup: normalizeNewlines((v.test_setup_code as string | undefined) ?? ''),
    });
  }
  const names = await inferFunctionNames(rows.map((r) => ({ code: r.code, tests: r.tests })));
  const tasks: ImportResult['tasks'] = [];
  rows.forEach((r, i) => {
    const n = names[i];
    if ('error' in n) {
      rejections.push({ file, line: r.line, task_id: r.id, field: 'test_list', code: 'NO_FUNCTION_NAME', message: n.error });
      return;
    }
    const parsed = Task.safeParse({
      task_id: r.id,
      query: r.text,
      function_name: n.name,
      canonical: r.code,
      tests: { kind: 'asserts', tests: r.tests, ...(r.setup.trim() ? { setup: r.setup } : {}) },
      distractors: [],
      source: { dataset: 'mbpp', ref: r.id.slice('mbpp_'.length) },
    });
    if (!parsed.success) {
      rejections.push({ file, line: r.line, task_id: r.id, ...invalidField(parsed.error) });
      return;
    }
    tasks.push({ task: parsed.data, file, line: r.line });
  });
  rejections.sort((a, b) => a.line - b.line);
  return { tasks, rejections };
}
