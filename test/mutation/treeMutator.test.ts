import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enumerateMutants, type MutateResponse } from '../../activities/mutation/mutator.ts';
import type { MutationCandidate } from '../../core/mutation/types.ts';
import { treeCodeFacts } from '../../activities/languages/codeFacts.ts';

const ok = (r: MutateResponse): MutationCandidate[] => {
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.candidates;
};
/** "bug_type operator original -> replacement" per candidate, in enumeration order. */
const edits = (cs: MutationCandidate[]) => cs.map((c) => `${c.bug_type} ${c.operator} ${JSON.stringify(c.original)} -> ${JSON.stringify(c.replacement)}`);

const JS = 'function helper(x) {\n  return x * 3;\n}\n\nfunction unused(y) {\n  return y - 1;\n}\n\nfunction clamp(xs, lo) {\n  if (xs.length === 0) {\n    return null;\n  }\n  let total = 0;\n  for (let i = 0; i < xs.length && xs[i] > lo; i++) {\n    total += helper(xs[i]);\n  }\n  return Math.max(total, lo - 2);\n}\n';
const GO = 'import "strings"\n\nfunc unused(y int) int {\n\treturn y - 1\n}\n\n// Count counts sub in s, overlaps included.\nfunc Count(s string, sub string) int {\n\tif len(sub) == 0 {\n\t\treturn 0\n\t}\n\tn := 0\n\tfor i := 0; i+len(sub) <= len(s); i++ {\n\t\tif strings.HasPrefix(s[i:], sub) {\n\t\t\tn += 1\n\t\t}\n\t}\n\treturn n\n}\n';

test('JavaScript: the six bug types at their sites, each one splice of the canonical, only in reachable code', async () => {
  const [r] = await enumerateMutants([{ id: 'js', code: JS, function_name: 'clamp', language: 'javascript' }], { cachePath: null });
  const cs = ok(r);
  const e = edits(cs);
  for (const want of [
    'wrong_operator arith_operator "*" -> "/"', // in helper: reachable through clamp's call
    'wrong_operator arith_operator "x * 3" -> "(x + 3)"', // another precedence class: the whole node, parenthesised
    'remove_edge_case_check remove_guard "  if (xs.length === 0) {\\n    return null;\\n  }\\n" -> ""',
    'wrong_comparison negate_equality "===" -> "!=="',
    'wrong_operator bool_operator "i < xs.length && xs[i] > lo" -> "(i < xs.length || xs[i] > lo)"',
    'remove_edge_case_check drop_condition "i < xs.length && xs[i] > lo" -> "(i < xs.length)"',
    'off_by_one_boundary boundary_shift "<" -> "<="',
    'off_by_one index_shift "i" -> "(i) + 1"',
    'off_by_one constant_shift "0" -> "1"',
    'wrong_operator aug_operator "+=" -> "-="',
    'wrong_operator swap_builtin "Math.max" -> "Math.min"',
    'swap_arguments swap_call_args "total, lo - 2" -> "lo - 2, total"',
    'swap_arguments swap_operands "lo - 2" -> "(2) - (lo)"',
  ]) assert.ok(e.includes(want), `missing ${want}`);
  // `unused` is never reached from clamp: no edit inside it (its `y - 1` would be the only `-` on line 6).
  assert.deepEqual(cs.filter((c) => c.line === 6), []);
  for (const c of cs) {
    // One contiguous edit: the mutant is the canonical with bytes [start, end) replaced.
    const buf = Buffer.from(JS);
    assert.equal(c.code, Buffer.concat([buf.subarray(0, c.start), Buffer.from(c.replacement), buf.subarray(c.end)]).toString());
    assert.equal(buf.subarray(c.start, c.end).toString(), c.original);
    const facts = await treeCodeFacts('javascript', c.code);
    assert.ok(facts.parses && facts.top_level_functions.includes('clamp'), c.code);
  }
});

test('Go: guards, comparisons, operators, arguments; spans in UTF-8 bytes after a comment; the file prefix is not part of them', async () => {
  const [r] = await enumerateMutants([{ id: 'go', code: GO, function_name: 'Count', language: 'go' }], { cachePath: null });
  const cs = ok(r);
  const e = edits(cs);
  for (const want of [
    'remove_edge_case_check remove_guard "\\tif len(sub) == 0 {\\n\\t\\treturn 0\\n\\t}\\n" -> ""',
    'wrong_comparison negate_equality "==" -> "!="',
    'off_by_one_boundary boundary_shift "<=" -> "<"',
    'wrong_comparison negate_condition "strings.HasPrefix(s[i:], sub)" -> "!(strings.HasPrefix(s[i:], sub))"',
    'swap_arguments swap_call_args "s[i:], sub" -> "sub, s[i:]"',
    'wrong_operator aug_operator "+=" -> "-="',
    'wrong_operator arith_operator "+" -> "-"',
  ]) assert.ok(e.includes(want), `missing ${want}`);
  assert.deepEqual(cs.filter((c) => c.line === 4), [], 'unused() is not reachable from Count');
  const guard = cs.find((c) => c.operator === 'remove_guard')!;
  assert.equal(guard.line, 9);
  assert.equal(Buffer.from(GO).subarray(guard.start, guard.end).toString(), guard.original);
  for (const c of cs) assert.ok((await treeCodeFacts('go', c.code)).parses, c.code);
});

test('TypeScript: type annotations are not edit sites; a canonical that does not parse or lacks the entry is refused', async () => {
  const ts = 'function sq(n: number): number {\n  return n < 0 ? -n * n : n * n;\n}\n';
  const [r, bad, missing] = await enumerateMutants([
    { id: 'ts', code: ts, function_name: 'sq', language: 'typescript' },
    { id: 'bad', code: 'function sq(n: number {\n', function_name: 'sq', language: 'typescript' },
    { id: 'missing', code: 'function other() {\n  return 1;\n}\n', function_name: 'sq', language: 'javascript' },
  ], { cachePath: null });
  assert.deepEqual(edits(ok(r)), [
    'wrong_comparison flip_comparison "<" -> ">"',
    'off_by_one_boundary boundary_shift "<" -> "<="',
    'off_by_one constant_shift "0" -> "1"',
    'wrong_operator arith_operator "-n * n" -> "(-n + n)"',
    'wrong_operator arith_operator "*" -> "/"',
    'wrong_operator arith_operator "n * n" -> "(n + n)"',
    'wrong_operator arith_operator "*" -> "/"',
  ]);
  assert.deepEqual(bad, { id: 'bad', ok: false, error: 'canonical does not parse' });
  // Edits inside a loop without a counter are marked (verified last: the likeliest to never end).
  const [loop] = await enumerateMutants([{ id: 'w', code: 'function half(n) {\n  let k = 0;\n  while (n > 1) {\n    n = n / 2;\n    k++;\n  }\n  return k;\n}\n', function_name: 'half', language: 'javascript' }], { cachePath: null });
  assert.deepEqual([...new Set(ok(loop).map((c) => `${c.line}:${c.in_while}`))], ['2:false', '3:true', '4:true']);
  assert.deepEqual(missing, { id: 'missing', ok: false, error: 'canonical does not define sq' });
});

test('Python: mutate.py candidates inside a helper the entry function never reaches are dropped; reachable helpers keep theirs', async () => {
  const code = 'def unused(y):\n    return y - 1\n\n\ndef helper(z):\n    return z * 2\n\n\ndef f(x):\n    return helper(x) + 1\n';
  const [r] = await enumerateMutants([{ id: 'py', code, function_name: 'f' }], { cachePath: null });
  const lines = new Set(ok(r).map((c) => c.line));
  assert.ok(!lines.has(2), 'no edit in unused()');
  assert.ok(lines.has(6) && lines.has(10), [...lines].join());
});
