import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { runGate } from '../../activities/gate/gate.ts';
import { buildBenchmark } from '../../activities/benchmark/build.ts';
import { PROFILES } from '../../core/gate/profiles.ts';
import { Task } from '../../schemas/task.ts';
import { readParquet } from '../../activities/storage/parquet.ts';

// The gate's five stages and the build on JavaScript, TypeScript and Go (test/fixtures/calls). The build uses the
// project's execution cache (keyed by runner and harness versions, code and suite): seconds warm, about a minute
// cold (each Go snippet is compiled once).
let oracle: Oracle;
before(async () => {
  oracle = await openOracle();
});
after(async () => oracle.close());

const calls7 = (f: (i: number) => { args: unknown[]; expected: unknown }) => ({ kind: 'calls', calls: Array.from({ length: 7 }, (_, i) => f(i)) });
const js = (id: string, canonical: string, distractors: string[], tests: unknown = calls7((i) => ({ args: [i], expected: i + 1 }))) =>
  Task.parse({ task_id: id, language: 'javascript', query: 'Add one.', function_name: `inc_${id}`, canonical: canonical.replace('NAME', `inc_${id}`), tests, distractors: distractors.map((code) => ({ code: code.replace('NAME', `inc_${id}`), bug_type: 'off_by_one', bug_description: 'x' })) });

test('gate rejections per language: schema, AST (tree-sitter), canonical, distractor stages; good tasks pass beside them', async () => {
  const good = js('good', 'function NAME(x) {\n  return x + 1;\n}\n', ['function NAME(x) {\n  return x + 2;\n}\n']);
  const fewTests = js('few', 'function NAME(x) {\n  return x + 1;\n}\n', ['function NAME(x) {\n  return x;\n}\n'], { kind: 'calls', calls: [{ args: [1], expected: 2 }] });
  const syntax = Task.parse({ task_id: 'gosyntax', language: 'go', query: 'q', function_name: 'Inc', canonical: 'func Inc(x int) int {\n\treturn x +\n', tests: calls7((i) => ({ args: [i], expected: i + 1 })), distractors: [{ code: 'func Inc(x int) int {\n\treturn x\n}\n', bug_type: 'off_by_one', bug_description: 'x' }] });
  const missing = Task.parse({ task_id: 'tsmissing', language: 'typescript', query: 'q', function_name: 'incTs', canonical: 'function incTs(x: number): number {\n  return x + 1;\n}\n', tests: calls7((i) => ({ args: [i], expected: i + 1 })), distractors: [{ code: 'function other(x: number): number {\n  return x;\n}\n', bug_type: 'off_by_one', bug_description: 'x' }] });
  const wrong = js('wrong', 'function NAME(x) {\n  return x + 2;\n}\n', ['function NAME(x) {\n  return x;\n}\n']);
  const equivalent = js('equiv', 'function NAME(x) {\n  return x + 1;\n}\n', ['function NAME(x) {\n  return 1 + x;\n}\n']);
  const report = await runGate([good, fewTests, syntax, missing, wrong, equivalent].map((task) => ({ task })), oracle, { ...PROFILES.check, tests: { min: 7, max: 10 } });
  assert.deepEqual(report.accepted.map((t) => t.task_id), ['good']);
  assert.deepEqual(report.rejections.map((r) => `${r.task_id} ${r.stage_name} ${r.code}`), [
    'few schema TEST_COUNT',
    'gosyntax ast_semantics CANONICAL_SYNTAX',
    'tsmissing ast_semantics DISTRACTOR_MISSING_FUNCTION',
    'wrong canonical_execution CANONICAL_FAILS',
    'equiv distractor_execution DISTRACTOR_PASSES',
  ]);
  assert.deepEqual(report.accepted[0].distractors[0].failing_tests, [0, 1, 2, 3, 4, 5, 6]);
});

test('build on the fixture: every JavaScript, TypeScript and Go task gets four verified twins; records carry the language and the calls', async () => {
  const out = mkdtempSync(join(tmpdir(), 'calls-build-'));
  try {
    const { manifest, report } = await buildBenchmark({ source: 'test/fixtures/calls', out, seed: 0, oracle, gate: runGate });
    assert.deepEqual(report.rejections.map((r) => `${r.task_id} [${r.stage}] ${r.code}: ${r.message}`), []);
    assert.equal(manifest.counts.queries, 8);
    assert.deepEqual(manifest.distractors_per_task, { 4: 8 });
    const queries = readFileSync(join(out, 'queries.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { language?: string; test_calls?: unknown[]; tests: string[] });
    assert.deepEqual(queries.map((q) => q.language).sort(), ['go', 'go', 'go', 'javascript', 'javascript', 'javascript', 'typescript', 'typescript']);
    assert.ok(queries.every((q) => q.tests.length === 0 && (q.test_calls?.length ?? 0) >= 7));
    const corpus = readFileSync(join(out, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { language?: string; is_canonical: boolean; metadata: { failing_tests?: number[] } });
    assert.equal(corpus.length, 40);
    assert.ok(corpus.every((c) => c.language !== undefined && (c.is_canonical || (c.metadata.failing_tests?.length ?? 0) > 0)));
    // The Parquet copy carries the language and the calls (JSON text) too.
    const pq = readParquet(join(out, 'queries.parquet'));
    assert.deepEqual(pq.getChild('language')!.toArray(), queries.map((q) => q.language));
    assert.deepEqual(JSON.parse(String(pq.getChild('test_calls')!.get(0))), queries[0].test_calls);
    assert.equal(readParquet(join(out, 'corpus.parquet')).getChild('language')!.length, 40);
    // The yield report counts the tree-sitter operators like Python's.
    assert.ok(report.yield.total.selected === 32 && report.yield.total.candidates > 32);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
