// Importers: MBPP, mapped JSONL, task JSONL, release format (round trip). Real files in a temp dir.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importMbpp } from '../../activities/importers/mbpp.ts';
import { importMappedJsonl } from '../../activities/importers/mappedJsonl.ts';
import { importTaskFiles } from '../../activities/importers/taskJsonl.ts';
import { importRelease, toRelease } from '../../activities/importers/release.ts';
import { writeJsonlAtomic } from '../../activities/storage/atomic.ts';
import type { Task } from '../../schemas/task.ts';

const dir = mkdtempSync(join(tmpdir(), 'h1-importers-'));
const jsonl = (name: string, lines: (object | string)[]) => {
  const p = join(dir, name);
  writeFileSync(p, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return p;
};

test('MBPP: text is the query, the function name comes from the tests, \\r\\n normalised, setup kept', async () => {
  // Records shaped like mbpp.jsonl (task 2 verbatim; a Node-class task like 367; one broken line; one bad record).
  const file = jsonl('mbpp.jsonl', [
    { text: 'Write a function to find the similar elements from the given two tuple lists.', code: 'def similar_elements(test_tup1, test_tup2):\r\n  res = tuple(set(test_tup1) & set(test_tup2))\r\n  return (res) ', task_id: 2, test_setup_code: '', test_list: ['assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)', 'assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)', 'assert similar_elements((11, 12, 14, 13),(17, 15, 14, 13)) == (13, 14)'], challenge_test_list: [] },
    { text: 'Check if a tree is balanced.', code: 'class Node:\r\n  def __init__(self, d):\r\n    self.d = d\r\ndef is_tree_balanced(root):\r\n  return root is not None', task_id: 367, test_setup_code: 'root = Node(1)\r\n', test_list: ['assert is_tree_balanced(root) == True'], challenge_test_list: [] },
    '{not json',
    { text: 'No tests', code: 'def f(): pass', task_id: 9, test_list: [] },
    { text: 'Tests call nothing defined', code: 'def g(x):\n  return x', task_id: 10, test_list: ['assert len([1]) == 1'] },
  ]);
  const r = await importMbpp(file);
  assert.equal(r.tasks.length, 2);
  const [a, b] = r.tasks.map((t) => t.task);
  assert.equal(a.task_id, 'mbpp_2');
  assert.equal(a.function_name, 'similar_elements');
  assert.equal(a.canonical, 'def similar_elements(test_tup1, test_tup2):\n  res = tuple(set(test_tup1) & set(test_tup2))\n  return (res) ');
  assert.deepEqual(a.tests, { kind: 'asserts', tests: ['assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)', 'assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)', 'assert similar_elements((11, 12, 14, 13),(17, 15, 14, 13)) == (13, 14)'] });
  assert.equal(a.query, 'Write a function to find the similar elements from the given two tuple lists.');
  assert.deepEqual(a.source, { dataset: 'mbpp', ref: '2' });
  assert.equal(b.function_name, 'is_tree_balanced', 'the called name the code defines, not the class');
  assert.deepEqual(b.tests, { kind: 'asserts', tests: ['assert is_tree_balanced(root) == True'], setup: 'root = Node(1)\n' });
  assert.equal(r.tasks[1].line, 2);
  assert.deepEqual(r.rejections.map((x) => [x.line, x.field, x.code]), [[3, '(record)', 'INVALID_JSON'], [4, 'test_list', 'INVALID_FIELD'], [5, 'test_list', 'NO_FUNCTION_NAME']]);
});

test('mapped JSONL: assert lists or check(candidate) programs, names inferred when not mapped', async () => {
  const file = jsonl('foreign.jsonl', [
    { id: 'a1', prompt: { text: 'Add two numbers' }, solution: 'def add(a, b):\n    return a + b\n', asserts: ['assert add(1, 2) == 3'] },
    { id: 'h1', prompt: { text: 'Negate' }, solution: 'def neg(x):\n    return -x\n', asserts: 'def check(candidate):\n    assert candidate(1) == -1\n', fn: 'neg' },
    { id: 'bad', prompt: { text: 'x' }, solution: 'def h(): pass', asserts: 'print(1)', fn: 'h' },
  ]);
  const r = await importMappedJsonl(file, { id: 'id', query: 'prompt.text', code: 'solution', tests: 'asserts', entry_point: 'fn' }, 'foreign');
  assert.deepEqual(r.tasks.map((t) => [t.task.task_id, t.task.function_name, t.task.tests.kind]), [['a1', 'add', 'asserts'], ['h1', 'neg', 'check']]);
  assert.equal(r.tasks[0].task.query, 'Add two numbers');
  assert.deepEqual(r.tasks[1].task.tests, { kind: 'check', program: 'def check(candidate):\n    assert candidate(1) == -1\n', entry_point: 'neg' });
  assert.deepEqual(r.rejections.map((x) => [x.line, x.task_id, x.field]), [[3, 'bad', 'asserts']]);
  assert.match(r.rejections[0].message, /check\(candidate\)/);
});

const sample: Task[] = [
  {
    task_id: 't_one', query: 'Sum a list', function_name: 'sum_list', domain: 'collections', canonical: 'def sum_list(xs):\n    return sum(xs)\n',
    tests: { kind: 'asserts', tests: ['assert sum_list([1]) == 1'], setup: 'import math' },
    distractors: [{ code: 'def sum_list(xs):\n    return sum(xs) + 1\n', bug_type: 'off_by_one', bug_description: 'added one', span: { start: 30, end: 37, line: 2 }, failing_tests: [0], operator: 'int_constant' }],
    source: { dataset: 'mbpp', ref: '7' }, metadata: { note: 'x' },
  },
  { task_id: 't_two', query: 'Negate', function_name: 'neg', canonical: 'def neg(x):\n    return -x\n', tests: { kind: 'check', program: 'def check(candidate):\n    assert candidate(1) == -1\n', entry_point: 'neg' }, distractors: [] },
];

test('release export: q_0001 ids, corpus ids, fixed key order; import gives the tasks back', () => {
  const { queries, corpus } = toRelease(sample);
  assert.deepEqual(queries.map((q) => q.query_id), ['q_0001', 'q_0002']);
  assert.deepEqual(corpus.map((c) => c.corpus_id), ['q_0001_canonical', 'q_0001_d1', 'q_0002_canonical']);
  assert.deepEqual(queries[0].distractor_corpus_ids, ['q_0001_d1']);
  assert.equal(queries[0].test_setup_code, 'import math');
  assert.equal(queries[1].test_program, sample[1].tests.kind === 'check' ? sample[1].tests.program : '');
  assert.equal(queries[0].source, 'mbpp:7');
  assert.deepEqual(Object.keys(queries[0]), ['query_id', 'query', 'function_name', 'domain', 'tests', 'test_setup_code', 'test_program', 'entry_point', 'correct_corpus_ids', 'distractor_corpus_ids', 'source', 'metadata']);
  const qf = join(dir, 'queries.jsonl');
  const cf = join(dir, 'corpus.jsonl');
  writeJsonlAtomic(qf, queries);
  writeJsonlAtomic(cf, corpus);
  const back = importRelease(qf, cf);
  assert.deepEqual(back.rejections, []);
  assert.deepEqual(back.tasks.map((t) => t.task), sample);
});

test('release import names the file, line and field of a dangling reference', () => {
  const { queries, corpus } = toRelease(sample);
  const qf = join(dir, 'q2.jsonl');
  const cf = join(dir, 'c2.jsonl');
  writeJsonlAtomic(qf, queries);
  writeJsonlAtomic(cf, corpus.filter((c) => c.corpus_id !== 'q_0001_d1'));
  const r = importRelease(qf, cf);
  assert.equal(r.tasks.length, 1);
  assert.deepEqual(r.rejections.map((x) => [x.file, x.line, x.task_id, x.field, x.code]), [[qf, 1, 't_one', 'distractor_corpus_ids[0]', 'MISSING_CORPUS_ITEM']]);
});

test('task JSONL: schema errors name the file, line and field; valid lines still load', () => {
  const file = jsonl('tasks.jsonl', [sample[0], { ...sample[1], query: '' }]);
  const r = importTaskFiles(file);
  assert.equal(r.tasks.length, 1);
  assert.deepEqual(r.rejections.map((x) => [x.line, x.task_id, x.field]), [[2, 't_two', 'query']]);
});
