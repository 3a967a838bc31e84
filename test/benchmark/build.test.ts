// The whole build against the real oracle and the real gate: import -> mutate + verify -> gate -> release files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { runGate } from '../../activities/gate/gate.ts';
import { buildBenchmark } from '../../activities/benchmark/build.ts';
import { readParquet } from '../../activities/storage/parquet.ts';
import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';

const dir = mkdtempSync(join(tmpdir(), 'h1-build-'));
let oracle: Oracle;
before(async () => {
  oracle = await openOracle({ cachePath: join(dir, 'exec.sqlite'), concurrency: 2 });
});
after(async () => {
  await oracle.close();
});

const tasks = [
  {
    task_id: 'clamp', query: 'Count how many values of a list fall inside the closed range [lo, hi]', function_name: 'count_in_range', domain: 'collections',
    canonical: 'def count_in_range(xs, lo, hi):\n    if lo > hi:\n        raise ValueError("empty range")\n    n = 0\n    for x in xs:\n        if x >= lo and x <= hi:\n            n += 1\n    return n\n',
    tests: { kind: 'asserts', tests: [
      'assert count_in_range([1, 2, 3], 1, 3) == 3', 'assert count_in_range([1, 2, 3], 2, 2) == 1', 'assert count_in_range([], 0, 5) == 0',
      'assert count_in_range([5, 6, 7], 6, 10) == 2', 'assert count_in_range([-1, 0, 1], 0, 0) == 1',
      'try:\n    count_in_range([1], 3, 2)\n    assert False, "no error"\nexcept ValueError:\n    pass', 'assert count_in_range([10, 20], 0, 9) == 0'] },
  },
  {
    task_id: 'window', query: 'Largest sum of k consecutive numbers in a list', function_name: 'max_window_sum', domain: 'math_numerical',
    canonical: 'def max_window_sum(xs, k):\n    if k <= 0 or k > len(xs):\n        return None\n    best = cur = sum(xs[:k])\n    for i in range(k, len(xs)):\n        cur += xs[i] - xs[i - k]\n        best = max(best, cur)\n    return best\n',
    tests: { kind: 'asserts', tests: [
      'assert max_window_sum([1, 2, 3, 4], 2) == 7', 'assert max_window_sum([4, 3, 2, 1], 2) == 7', 'assert max_window_sum([5], 1) == 5',
      'assert max_window_sum([1, 2], 3) is None', 'assert max_window_sum([1, 2], 0) is None', 'assert max_window_sum([-1, -2, -3], 2) == -3',
      'assert max_window_sum([2, 9, 1, 9, 2], 3) == 19', 'assert max_window_sum([1, 1, 1, 1], 4) == 4'] },
  },
  // Canonical fails its own test.
  { task_id: 'wrong', query: 'Double a number', function_name: 'double_it', canonical: 'def double_it(x):\n    return x + x + 1\n',
    tests: { kind: 'asserts', tests: Array.from({ length: 7 }, (_, i) => `assert double_it(${i}) == ${2 * i}`) } },
  // Tests never call the function.
  { task_id: 'nocall', query: 'Triple a number', function_name: 'triple_it', canonical: 'def triple_it(x):\n    return 3 * x\n',
    tests: { kind: 'asserts', tests: Array.from({ length: 7 }, (_, i) => `assert ${i} * 3 == ${3 * i}`) } },
  // Nothing to mutate.
  { task_id: 'ident', query: 'Accept anything, return nothing', function_name: 'same_thing', canonical: 'def same_thing(x):\n    return None\n',
    tests: { kind: 'asserts', tests: Array.from({ length: 7 }, (_, i) => `assert same_thing(${i}) is None`) } },
];

test('build: release files, rejections with reasons, byte-identical output for the same inputs and seed', async () => {
  const src = join(dir, 'tasks.jsonl');
  writeFileSync(src, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n' + '{"task_id": "broken"\n');
  const build = (out: string, seed: number) =>
    buildBenchmark({ source: src, out, seed, oracle, gate: runGate, mutator: { cachePath: join(dir, 'mut.sqlite') } });

  const a = await build(join(dir, 'a'), 3);
  const reasons = Object.fromEntries(a.report.rejections.map((r) => [r.task_id ?? `line ${r.line}`, `${r.stage}:${r.code}`]));
  assert.equal(reasons.wrong, 'mutation:CANONICAL_FAILS');
  assert.equal(reasons.ident, 'mutation:NO_CANDIDATES');
  assert.equal(reasons.nocall, 'precheck:TESTS_DO_NOT_CALL_FUNCTION');
  assert.equal(reasons['line 6'], 'import:INVALID_JSON');

  const queries = readFileSync(join(dir, 'a', 'queries.jsonl'), 'utf8').trim().split('\n').map((l) => QueryRecord.parse(JSON.parse(l)));
  const corpus = readFileSync(join(dir, 'a', 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => CorpusRecord.parse(JSON.parse(l)));
  assert.deepEqual(queries.map((q) => [q.query_id, q.metadata.task_id]), [['q_0001', 'clamp'], ['q_0002', 'window']]);
  assert.equal(corpus.length, 10);
  for (const q of queries) {
    const ds = corpus.filter((c) => c.query_id === q.query_id && !c.is_canonical);
    assert.equal(ds.length, 4);
    assert.ok(new Set(ds.map((d) => d.bug_type)).size >= 3, `${q.query_id}: at least 3 distinct bug types`);
    for (const d of ds) assert.match(d.bug_description!, /^\w+ at line \d+: /);
  }
  assert.deepEqual(a.manifest.counts, { input_records: 6, import_rejected: 1, precheck_rejected: 1, mutation_rejected: 2, gate_rejected: 0, queries: 2, corpus: 10, distractors: 8 });
  assert.deepEqual(a.manifest.distractors_per_task, { '4': 2 });
  assert.equal(readParquet(join(dir, 'a', 'corpus.parquet')).numRows, 10);
  assert.equal(readParquet(join(dir, 'a', 'queries.parquet')).getChild('query_id')?.get(1), 'q_0002');
  const y = a.report.yield.total;
  assert.equal(y.verified, y.equivalent + y.crash_only + y.kept);

  // Same inputs and seed, warm caches this time: every byte the same.
  await build(join(dir, 'b'), 3);
  // timings.json (where the time went) is the one file that may differ (canonical-cpu.json too, where a time was measured: here the warm build reads the first one's from the cache).
  for (const f of readdirSync(join(dir, 'a')).sort().filter((f) => f !== 'timings.json')) {
    assert.deepEqual(readFileSync(join(dir, 'b', f)), readFileSync(join(dir, 'a', f)), `${f} differs between identical builds`);
  }
  assert.deepEqual(readdirSync(join(dir, 'a')).sort(), ['canonical-cpu.json', 'corpus.jsonl', 'corpus.parquet', 'manifest.json', 'queries.jsonl', 'queries.parquet', 'report.json', 'timings.json']);
  // The breakdown: the phases in order, and every execution of the warm build answered by the cache.
  const ta = JSON.parse(readFileSync(join(dir, 'a', 'timings.json'), 'utf8'));
  const tb = JSON.parse(readFileSync(join(dir, 'b', 'timings.json'), 'utf8'));
  assert.deepEqual(ta.phases.map((p: [string, number]) => p[0]), ['import + precheck', 'enumerate (within verification)', 'canonicals (within verification)', 'verification', 'gate', 'write']);
  assert.ok(ta.executions.run > 0);
  assert.equal(tb.executions.run, 0, 'warm: nothing run again');
  assert.equal(tb.executions.cached, ta.executions.run + ta.executions.cached);
  // Mutants ran under limits from the canonicals' measured times: fast toy canonicals get a short tier (which one
  // depends on the machine's load: 0.1 s unless the canonical took over 20 ms), one entry per task with mutants.
  assert.equal(Object.values(a.report.mutant_timeout_s).reduce((x, y) => x + y, 0), 2);
  for (const t of Object.keys(a.report.mutant_timeout_s)) assert.ok(Number(t) <= 1, `tier ${t} s`);
});
