// infra/python/mutate.py through its batch runner: every candidate is one byte splice of the canonical.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCode, enumerateMutants } from '../../activities/mutation/mutator.ts';
import { BUG_TYPES } from '../../schemas/task.ts';
import type { MutationCandidate } from '../../core/mutation/types.ts';

const RICH = [
  'import math',
  'def score(xs, n):  # keep this comment',
  '    if not xs:',
  '        return -1',
  '',
  '    total = 0',
  '    for i in range(1, len(xs)):',
  '        if xs[i] > 0 and xs[i] % 2 == 0:',
  '            total += xs[i] * 2',
  '    label = "é" if n <= 3 else max(n, 2)',
  '    return (total - n) - 1, label',
  '',
].join('\n');

async function mutants(code: string, fn: string): Promise<MutationCandidate[]> {
  const [r] = await enumerateMutants([{ id: 'x', code, function_name: fn }], { cachePath: null, workers: 1 });
  assert.ok(r.ok, !r.ok ? r.error : '');
  return r.ok ? r.candidates : [];
}

/** The mutant is the canonical with exactly [start, end) replaced, and `original` is what stood there. */
function assertSingleSplice(canonical: string, c: MutationCandidate, where: string): void {
  const canon = Buffer.from(canonical, 'utf8');
  const expected = Buffer.concat([canon.subarray(0, c.start), Buffer.from(c.replacement, 'utf8'), canon.subarray(c.end)]);
  assert.equal(c.code, expected.toString('utf8'), `${where}: ${c.operator} at ${c.start}`);
  assert.equal(canon.subarray(c.start, c.end).toString('utf8'), c.original, `${where}: ${c.operator} at ${c.start}`);
}

const find = (cs: MutationCandidate[], op: string, original: string, replacement: string) =>
  cs.find((c) => c.operator === op && c.original === original && c.replacement === replacement);

test('every candidate is the canonical with exactly one byte span replaced', async () => {
  const cs = await mutants(RICH, 'score');
  assert.ok(cs.length > 30, `only ${cs.length} candidates`);
  for (const c of cs) {
    assertSingleSplice(RICH, c, 'RICH');
    assert.ok(c.code.includes('# keep this comment'), 'comments survive');
    assert.notEqual(c.code, RICH);
  }
  assert.equal(new Set(cs.map((c) => c.code)).size, cs.length, 'no duplicate mutants');
});

test('all six bug types are produced, with the operators the issue names', async () => {
  const cs = await mutants(RICH, 'score');
  for (const t of BUG_TYPES) assert.ok(cs.some((c) => c.bug_type === t), `missing ${t}`);
  assert.ok(find(cs, 'boundary_shift', '<=', '<'));
  assert.ok(find(cs, 'flip_comparison', '>', '<'));
  assert.ok(find(cs, 'negate_equality', '==', '!='));
  assert.ok(find(cs, 'int_constant', '1', '2'));
  assert.ok(find(cs, 'range_bound', 'len(xs)', 'len(xs) - 1'));
  assert.ok(find(cs, 'aug_operator', '+=', '-='));
  assert.ok(find(cs, 'bool_operator', 'xs[i] > 0 and xs[i] % 2 == 0', 'xs[i] > 0 or xs[i] % 2 == 0'));
  assert.ok(find(cs, 'swap_call_args', 'n, 2', '2, n'));
  assert.ok(find(cs, 'swap_builtin', 'max', 'min'));
  // Operands of `-` keep their own parentheses when swapped.
  assert.ok(find(cs, 'swap_operands', '(total - n) - 1', '1 - (total - n)'));
  const guard = find(cs, 'remove_guard', '    if not xs:\n        return -1\n', '');
  assert.ok(guard, 'early-exit guard deleted as whole lines');
  assert.equal(guard.line, 3);
  assert.ok(find(cs, 'drop_condition', 'xs[i] > 0 and ', ''));
});

test('byte offsets are UTF-8 offsets (a multi-byte character before the edit)', async () => {
  const code = 'def f(s):\n    t = "ééé"\n    return len(s) < 3\n';
  const cs = await mutants(code, 'f');
  const c = find(cs, 'boundary_shift', '<', '<=')!;
  assert.ok(c);
  assert.equal(c.start, Buffer.from(code, 'utf8').indexOf('<'));
  assert.equal(c.line, 3);
});

test('a token edit that precedence would regroup is parenthesised, never mislabelled', async () => {
  // `a * b + c` with + -> * stays (a*b)*c; `a + b * c` with * -> + must not become (a+b)+c.
  const cs = await mutants('def g(a, b, c):\n    return a - b * c\n', 'g');
  const mult = cs.filter((c) => c.operator === 'arith_operator' && c.original.includes('*'));
  assert.deepEqual(mult.map((c) => [c.original, c.replacement]), [
    ['b * c', '(b + c)'], // `a - b + c` would mean (a - b) + c
    ['*', '//'], // same precedence: the token alone
  ]);
});

test('the same input gives the same candidates; bad input gives a clear error, the batch goes on', async () => {
  const reqs = [
    { id: 'a', code: RICH, function_name: 'score' },
    { id: 'b', code: 'def broken(:\n  pass\n', function_name: 'broken' },
    { id: 'c', code: 'def other():\n    return 1\n', function_name: 'missing' },
    { id: 'd', code: 'def h(x):\n    x.clear()\n', function_name: 'h' },
  ];
  const r1 = await enumerateMutants(reqs, { cachePath: null, workers: 2 });
  const r2 = await enumerateMutants(reqs, { cachePath: null, workers: 1 });
  assert.deepEqual(r1, r2);
  assert.deepEqual(r1.map((r) => r.ok), [true, false, false, true]);
  assert.match(!r1[1].ok ? r1[1].error : '', /SyntaxError/);
  assert.match(!r1[2].ok ? r1[2].error : '', /does not define function 'missing'/);
  assert.deepEqual(r1[3].ok && r1[3].candidates, []);
});

test('analyze lists top-level definitions and the names each test calls', async () => {
  const [r] = await analyzeCode([{ id: '1', code: 'import re\nclass Node: pass\ndef f(x):\n    return x\n', tests: ['assert set(f(1)) == {1}', 'assert obj.f(2)'] }]);
  assert.ok(r.ok);
  assert.deepEqual(r.ok && r.defined, ['Node', 'f']);
  assert.deepEqual(r.ok && r.calls, [['set', 'f'], ['f']]);
});

test('decorators and annotations are left alone; a lone guard in a block becomes `pass`; elif guards go whole', async () => {
  const code = [
    'from functools import lru_cache',
    '@lru_cache(maxsize=128)',
    'def walk(xs: list[int], k: int = 3) -> int:',
    '    for x in xs:',
    '        if x < 0:',
    '            continue',
    '    if k == 0:',
    '        return 0',
    '    elif k == 1:',
    '        return 1',
    '    return k',
    '',
  ].join('\n');
  const cs = await mutants(code, 'walk');
  assert.ok(!cs.some((c) => c.line === 2), 'nothing in the decorator line');
  assert.ok(!cs.some((c) => c.line === 3 && c.original !== '3'), 'only the default value on the def line');
  assert.ok(find(cs, 'int_constant', '3', '4'));
  const lone = find(cs, 'remove_guard', '        if x < 0:\n            continue\n', '        pass\n');
  assert.ok(lone, 'the only statement of the loop body is replaced by pass at its indentation');
  assert.ok(find(cs, 'remove_guard', '    elif k == 1:\n        return 1\n', ''), 'an elif guard is deleted with its body');
  for (const c of cs) assert.equal(Buffer.from(c.code).subarray(0, c.start).toString(), Buffer.from(code).subarray(0, c.start).toString());
});

test('operators beyond token swaps: sequences lose an end, truth tests negate, tuples swap, numbers in strings shift', async () => {
  const code = [
    'import re',
    'def pick(words, text, n):',
    '    found = re.search(r"\\w{4,}", text)',
    '    if found:',
    '        words.append(found.group(0))',
    '    if not words:',
    '        return (0, n)',
    '    total = sum(len(w) for w in words)',
    "    return (total, ''.join(words), [w.title() for w in words if w])",
    '',
  ].join('\n');
  const cs = await mutants(code, 'pick');
  assert.ok(find(cs, 'string_digit', '4', '5'), 'regex quantifier +1');
  assert.ok(find(cs, 'string_digit', '4', '3'), 'regex quantifier -1');
  assert.ok(find(cs, 'negate_condition', 'found', 'not found'));
  assert.ok(find(cs, 'negate_condition', 'w', 'not w'), 'comprehension filter');
  assert.ok(find(cs, 'remove_not', 'not words', 'words'));
  assert.ok(find(cs, 'remove_conditional', '    if found:\n        words.append(found.group(0))\n', ''));
  assert.ok(find(cs, 'swap_items', '0, n', 'n, 0'));
  assert.ok(find(cs, 'seq_bound', 'words', 'words[1:]'), 'join argument or loop iterable');
  assert.ok(find(cs, 'seq_bound', 'words', 'words[:-1]'));
  assert.ok(find(cs, 'swap_method', 'search', 'match'));
  assert.ok(find(cs, 'swap_method', 'title', 'capitalize'));
  assert.ok(find(cs, 'regex_complement', 'w', 'W'), '\\w becomes its complement \\W');
  assert.ok(find(cs, 'arg_shift', 'text', 'text + 1'), 'a variable passed to a call, one too many');
  assert.ok(find(cs, 'seq_bound', 'text', 'text[:-1]'), 'a variable passed to a call, one element short');
  // A generator expression cannot be sliced: sum(...) offers no seq_bound on it; a docstring keeps its digits.
  assert.ok(!cs.some((c) => c.operator === 'seq_bound' && c.original.startsWith('len(w) for')));
  const doc = await mutants('def f(s):\n    """Up to 3 items."""\n    return s.strip()\n', 'f');
  assert.ok(!doc.some((c) => c.operator === 'string_digit'));
  const more = await mutants('import re\ndef area(b, h, strict=True):\n    ok = re.match(r"^[a-z]+_[^0-9]+$", "x")\n    return b * h\n', 'area');
  assert.ok(find(more, 'flip_boolean', 'True', 'False'));
  assert.ok(find(more, 'result_shift', 'b * h', 'b * h + 1'));
  assert.ok(find(more, 'result_shift', 'b * h', 'b * h - 1'));
  assert.ok(find(more, 'regex_anchor', '^', ''));
  assert.ok(find(more, 'regex_anchor', '$', ''));
  assert.ok(find(more, 'regex_quantifier', '+', '*'));
  assert.ok(find(more, 'regex_complement', '^', ''), '[^0-9] loses its negation');
  assert.ok(!more.some((c) => c.operator.startsWith('regex') && c.original.includes('-')), 'class ranges untouched');
  // Without `import re` a string is not taken for a pattern.
  const plain = await mutants('def tag(s):\n    return s + "+"\n', 'tag');
  assert.ok(!plain.some((c) => c.operator.startsWith('regex')));
  for (const c of cs) assert.equal(c.bug_type, { string_digit: 'off_by_one', seq_bound: 'off_by_one', negate_condition: 'wrong_comparison', remove_not: 'wrong_comparison', swap_items: 'swap_arguments', remove_conditional: 'remove_edge_case_check', arg_shift: 'off_by_one', regex_complement: 'wrong_comparison' }[c.operator] ?? c.bug_type);
});

test('on all of MBPP: every candidate is an exact single-span splice, and nearly every task offers some', async () => {
  const { importMbpp } = await import('../../activities/importers/mbpp.ts');
  const { resolveSource } = await import('../../activities/benchmark/sources.ts');
  const { tasks } = await importMbpp(resolveSource('mbpp').path);
  assert.equal(tasks.length, 974);
  const out = await enumerateMutants(tasks.map(({ task }) => ({ id: task.task_id, code: task.canonical, function_name: task.function_name })), { cachePath: null });
  let total = 0;
  const without: string[] = [];
  out.forEach((r, i) => {
    assert.ok(r.ok, `${tasks[i].task.task_id}: ${!r.ok ? r.error : ''}`);
    if (!r.ok) return;
    if (r.candidates.length === 0) without.push(tasks[i].task.task_id);
    for (const c of r.candidates) assertSingleSplice(tasks[i].task.canonical, c, tasks[i].task.task_id);
    total += r.candidates.length;
  });
  assert.ok(total > 20000, `only ${total} candidates`);
  // Before the operators of docs/mutation-operators.md, 69 tasks had none.
  assert.ok(without.length <= 5, `no candidate for ${without.join(', ')}`);
});
