// import jsonl without a script: .jsonl.gz, --map templates and docstring(...), presets, per-record code errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { importMappedJsonl } from '../../activities/importers/mappedJsonl.ts';
import { importMbpp } from '../../activities/importers/mbpp.ts';
import { PRESETS } from '../../activities/importers/presets.ts';
import { mappingFrom, rejectionSummary } from '../../cli/commands/import.ts';
import { evalFieldSpec, parseFieldSpec } from '../../core/importers/fieldSpec.ts';
import { projectRoot } from '../../activities/paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'i14-mapping-'));
const fixture = join(projectRoot(), 'test', 'fixtures', 'check-program', 'check-program.jsonl.gz');
const gz = (name: string, records: object[]) => {
  const p = join(dir, name);
  writeFileSync(p, gzipSync(records.map((r) => JSON.stringify(r)).join('\n') + '\n'));
  return p;
};

test('field specs: paths, templates with literal text and braces, docstring(...); malformed specs say why', () => {
  const rec = { prompt: 'def f():\n', body: { text: '    return 1\n' }, id: 7 };
  assert.deepEqual(evalFieldSpec(parseFieldSpec('body.text'), rec), { value: '    return 1\n' });
  assert.deepEqual(evalFieldSpec(parseFieldSpec('{prompt}{body.text}'), rec), { value: 'def f():\n    return 1\n' });
  assert.deepEqual(evalFieldSpec(parseFieldSpec('task_{id}{{x}}'), rec), { value: 'task_7{x}' });
  assert.deepEqual(evalFieldSpec(parseFieldSpec('docstring({prompt})'), rec), { docstringOf: 'def f():\n' });
  assert.deepEqual(evalFieldSpec(parseFieldSpec('{prompt}{nope}'), rec), { error: '{nope}: missing' });
  assert.deepEqual(evalFieldSpec(parseFieldSpec('{body}'), rec), { error: '{body}: not text' });
  assert.throws(() => parseFieldSpec('{prompt'), /unclosed "\{" at character 1/);
  assert.throws(() => parseFieldSpec('a}b'), /unmatched "\}" at character 2/);
  assert.throws(() => parseFieldSpec('{a b}'), /"\{a b\}" is not a field path/);
  assert.throws(() => parseFieldSpec('docstring(docstring(a))'), /cannot be nested/);
  assert.throws(() => mappingFrom(undefined, ['code']), /--map code: expected <target>=<spec>/);
  assert.throws(() => mappingFrom(undefined, ['nonsense=a']), /target one of query, code/);
  assert.throws(() => mappingFrom('check-program', ['code={prompt']), /mapping code: "\{prompt": unclosed/);
  assert.throws(() => mappingFrom(undefined, ['code=docstring(prompt)']), /mapping code: docstring\(\.\.\.\) builds the query only, not code/);
  assert.throws(() => mappingFrom('humaneval', []), /unknown --preset "humaneval" \(known: check-program, mbpp\)/);
  // --map overrides one field of a preset and keeps the rest.
  assert.deepEqual(mappingFrom('check-program', ['query=prompt']), { ...PRESETS['check-program'], query: 'prompt' });
});

test('preset check-program over the gzipped fixture: code is prompt + body less the docstring, the query the docstring', async () => {
  const raw = gunzipSync(readFileSync(fixture)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  const r = await importMappedJsonl(fixture, mappingFrom('check-program', []), 'check-program');
  assert.deepEqual(r.rejections, []);
  assert.equal(r.tasks.length, 22);
  const t = r.tasks[3].task;
  assert.equal(t.task_id, 'CP/3');
  // The prompt is the signature line, then the docstring's lines: the stored code keeps only the signature.
  assert.equal(t.canonical, raw[3].prompt.split('\n')[0] + '\n' + raw[3].canonical_solution);
  assert.ok(!t.canonical.includes(t.query));
  assert.deepEqual(t.metadata, { query_docstring: 'removed' });
  assert.ok(r.tasks.every((x) => x.task.metadata?.query_docstring === 'removed'));
  // --keep-docstring: prompt + body as given, and the task says so.
  const kept = await importMappedJsonl(fixture, mappingFrom('check-program', []), 'check-program', { keepDocstring: true });
  assert.equal(kept.tasks[3].task.canonical, raw[3].prompt + raw[3].canonical_solution);
  assert.deepEqual(kept.tasks[3].task.metadata, { query_docstring: 'kept', query_docstring_note: '--keep-docstring' });
  assert.equal(t.query, 'Total price of the items in cart (name -> quantity), given a price table; unknown items cost nothing.');
  assert.equal(t.function_name, 'total_price');
  assert.deepEqual(t.tests, { kind: 'check', program: raw[3].test, entry_point: 'total_price' });
  assert.deepEqual(t.source, { dataset: 'check-program', ref: 'CP/3' });
  // The cleaned docstring keeps its doctest lines, dedented (inspect.cleandoc).
  assert.equal(r.tasks[0].task.query, 'Count how many values of xs lie in the closed range [lo, hi].\n>>> count_in_range([1, 2, 3], 2, 3)\n2');
});

test('a mapping that gives unparseable code or code without the entry point is rejected per record, counted per reason', async () => {
  const body = '    return a + b\n';
  const file = gz('mixed.jsonl.gz', [
    { task_id: 'ok', prompt: 'def add(a, b):\n    """Add a and b."""\n', canonical_solution: body, test: 'def check(candidate):\n    assert candidate(1, 2) == 3\n', entry_point: 'add' },
    { task_id: 'other', prompt: 'def plus(a, b):\n    """Add a and b."""\n', canonical_solution: body, test: 'def check(candidate):\n    assert candidate(1, 2) == 3\n', entry_point: 'add' },
    { task_id: 'nodoc', prompt: 'def add(a, b):\n', canonical_solution: body, test: 'def check(candidate):\n    assert candidate(1, 2) == 3\n', entry_point: 'add' },
    { task_id: 'noprompt', canonical_solution: body, test: 'def check(candidate):\n    assert candidate(1, 2) == 3\n', entry_point: 'add' },
  ]);
  const preset = await importMappedJsonl(file, mappingFrom('check-program', []), 'x');
  assert.deepEqual(preset.tasks.map((t) => t.task.task_id), ['ok']);
  assert.deepEqual(preset.rejections.map((x) => [x.line, x.task_id, x.field, x.code]), [
    [2, 'other', '{prompt}{canonical_solution}', 'ENTRY_POINT_NOT_DEFINED'],
    [3, 'nodoc', 'docstring({prompt})', 'NO_DOCSTRING'],
    [4, 'noprompt', '{prompt}{canonical_solution}', 'INVALID_FIELD'],
  ]);
  assert.equal(preset.rejections[0].message, 'does not define add() at module level (defines: plus)');
  assert.equal(preset.rejections[2].message, '{prompt}: missing');
  // The body alone (the mapping the user tried) is not a module: every record says so.
  const bodies = await importMappedJsonl(file, mappingFrom('check-program', ['code=canonical_solution', 'query=task_id']), 'x');
  assert.equal(bodies.tasks.length, 0);
  assert.deepEqual(bodies.rejections.map((x) => x.code), ['CODE_DOES_NOT_PARSE', 'CODE_DOES_NOT_PARSE', 'CODE_DOES_NOT_PARSE', 'CODE_DOES_NOT_PARSE']);
  assert.match(bodies.rejections[0].message, /^IndentationError: unexpected indent \(line 1\)/);
  assert.equal(rejectionSummary([...preset.rejections, ...bodies.rejections]), '7 records rejected: 4 CODE_DOES_NOT_PARSE, 1 ENTRY_POINT_NOT_DEFINED, 1 INVALID_FIELD, 1 NO_DOCSTRING');
});

test('preset mbpp gives the tasks import mbpp gives (ids, tests, setup, query, name)', async () => {
  const rec = { text: 'Check if a tree is balanced.', code: 'class Node:\r\n  def __init__(self, d):\r\n    self.d = d\r\ndef is_tree_balanced(root):\r\n  return root is not None', task_id: 367, test_setup_code: 'root = Node(1)\r\n', test_list: ['assert is_tree_balanced(root) == True'], challenge_test_list: [] };
  const file = gz('mbpp.jsonl.gz', [rec]);
  const viaPreset = await importMappedJsonl(file, mappingFrom('mbpp', []), 'mbpp');
  const viaFormat = await importMbpp(file);
  assert.deepEqual(viaPreset.rejections, []);
  const strip = (t: (typeof viaFormat.tasks)[0]['task']) => ({ ...t, source: undefined });
  assert.deepEqual(viaPreset.tasks.map((t) => strip(t.task)), viaFormat.tasks.map((t) => strip(t.task)));
});
