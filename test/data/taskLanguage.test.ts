import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Task, taskLanguage } from '../../schemas/task.ts';
import { functionalLanguage, FUNCTIONAL_LANGUAGES, UnknownLanguageError } from '../../core/languages/functional.ts';

const goTask = {
  task_id: 'cur_go_geometry_03', language: 'go', query: 'Area of a polygon.', function_name: 'PolygonArea', domain: 'geometry',
  canonical: 'func PolygonArea(xs []float64, ys []float64) float64 {\n\treturn 0\n}\n',
  tests: { kind: 'calls', calls: [{ args: [[0, 4, 0], [0, 0, 3]], expected: 6.0 }, { args: [[0.1], [0.2]], expected: 0.0, approx: 1e-9 }, { args: [-1], throws: 'error' }] },
};

test('a calls suite gets its language and entry point from the task, so the suite (and its cache key) is self-contained', () => {
  const t = Task.parse(goTask);
  assert.equal(taskLanguage(t), 'go');
  assert.deepEqual(t.tests, { kind: 'calls', language: 'go', entry_point: 'PolygonArea', calls: goTask.tests.calls });
});

test('a Python record parses to the same object as before: no language key appears', () => {
  const py = { task_id: 't1', query: 'q', function_name: 'f', canonical: 'def f():\n    return 1\n', tests: { kind: 'asserts', tests: ['assert f() == 1'] }, distractors: [] };
  const t = Task.parse(py);
  assert.equal(taskLanguage(t), 'python');
  assert.equal(JSON.stringify(t), JSON.stringify(py));
});

test('language and suite kind must agree; a call needs exactly one of expected and throws', () => {
  const issues = (r: unknown) => {
    const p = Task.safeParse(r);
    assert.equal(p.success, false);
    return p.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  assert.deepEqual(issues({ ...goTask, language: undefined }), ['tests.language: a calls suite needs the task\'s language: javascript, typescript or go']);
  assert.match(issues({ ...goTask, language: 'javascript', tests: { kind: 'asserts', tests: ['assert f()'] } }).join(), /tests.kind: a javascript task's tests must be \{kind: "calls"\}/);
  assert.match(issues({ ...goTask, tests: { kind: 'calls', calls: [{ args: [1], expected: 1, throws: 'error' }] } }).join(), /exactly one of expected and throws/);
  assert.match(issues({ ...goTask, tests: { kind: 'calls', calls: [{ args: [1] }] } }).join(), /exactly one of expected and throws/);
  assert.match(issues({ ...goTask, tests: { kind: 'calls', calls: [{ args: [1], expected: null, mutates: 1 }] } }).join(), /mutates names an argument/);
  // expected: null is a value (JS undefined / Go nil), not a missing field.
  assert.equal(Task.safeParse({ ...goTask, tests: { kind: 'calls', calls: [{ args: [1], expected: null }] } }).success, true);
});

test('the language table has a row per schema language; any other name is refused in one line', () => {
  assert.deepEqual(Object.keys(FUNCTIONAL_LANGUAGES).sort(), ['go', 'javascript', 'python', 'typescript']);
  assert.equal(functionalLanguage('go').runner, 'go');
  assert.throws(() => functionalLanguage('rust'), (e: unknown) => e instanceof UnknownLanguageError && e.message === 'unknown language "rust": the functional benchmark supports python, javascript, typescript, go');
});

test('a curated source per language keeps only that language\'s tasks of its folder (JavaScript and TypeScript share one)', async () => {
  const { loadSource, sourceFiles } = await import('../../activities/benchmark/sources.ts');
  const { join } = await import('node:path');
  const dir = join(import.meta.dirname, '..', 'fixtures', 'calls');
  const src = { kind: 'curated' as const, path: dir, paths: [dir], languages: ['typescript' as const], profile: 'default' as const };
  const r = await loadSource(src);
  assert.deepEqual(r.tasks.map(({ task }) => task.task_id), ['fx_ts_median', 'fx_ts_valid_hex']);
  assert.deepEqual(sourceFiles(src).map((f) => f.split('/').pop()), ['go.jsonl', 'javascript.jsonl']);
  const both = await loadSource({ ...src, languages: ['javascript', 'go'] });
  assert.equal(both.tasks.length, 6);
});
