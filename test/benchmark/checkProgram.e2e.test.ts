// The README's check-program example through the CLI (in-process): the gzipped fixture → import --preset
// check-program → build --profile check, then every accepted twin verified again by plain Python against the
// original check(candidate) program; and the exit codes of build and run when nothing is accepted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { main } from '../../cli/main.ts';
import { projectRoot } from '../../activities/paths.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';
import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';

const dir = mkdtempSync(join(tmpdir(), 'i14-check-e2e-'));
const fixture = join(projectRoot(), 'test', 'fixtures', 'check-program', 'check-program.jsonl.gz');
let savedState: string | undefined;
before(() => {
  // Caches (execution, mutation) of this test only.
  savedState = process.env.EXECRETRIEVAL_STATE_DIR;
  process.env.EXECRETRIEVAL_STATE_DIR = join(dir, 'state');
});
after(() => {
  if (savedState === undefined) delete process.env.EXECRETRIEVAL_STATE_DIR;
  else process.env.EXECRETRIEVAL_STATE_DIR = savedState;
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI as bin/execretrieval.js runs it (main, with its one-line error handler): exit code, stdout, stderr. */
async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const write = process.stderr.write.bind(process.stderr);
  const saved = process.exitCode;
  process.exitCode = undefined;
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    await main(['node', 'execretrieval', ...args]);
    return { code: process.exitCode ?? 0, out: out.join('\n'), err: err.join('') };
  } finally {
    console.log = log;
    console.error = error;
    process.stderr.write = write;
    process.exitCode = saved;
  }
}

const readJsonl = <T>(file: string, parse: (v: unknown) => T) => readFileSync(file, 'utf8').trim().split('\n').map((l) => parse(JSON.parse(l)));

/**
 * Plain Python, none of the project's code: each snippet against the original program (exec, then
 * check(entry point)) and against each split test in a fresh namespace (code, setup, test), 2 s per run.
 */
const VERIFY = String.raw`
import json, signal, sys
def timeout(*_):
    raise TimeoutError()
signal.signal(signal.SIGALRM, timeout)
def run(src_list, call=None):
    ns = {'__name__': '__main__'}
    signal.setitimer(signal.ITIMER_REAL, 2)
    try:
        for src in src_list:
            exec(src, ns)
        if call:
            ns['check'](ns[call])
        return 'pass'
    except TimeoutError:
        return 'timeout'
    except BaseException:
        return 'fail'
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
out = []
for t in json.load(sys.stdin):
    res = []
    for code in t['codes']:
        res.append({
            'program': run([code, t['program']], t['entry']),
            'tests': [run([code, t['setup'] or '', test]) for test in t['tests']],
        })
    out.append(res)
print(json.dumps(out))
`;

test('check-program fixture: import → build; ≥ 80% of tasks get four twins, and plain Python agrees with every verdict', async () => {
  const tasks = join(dir, 'cp', 'tasks.jsonl');
  const imp = await cli('import', 'jsonl', fixture, '--preset', 'check-program', '--out', tasks);
  assert.equal(imp.code, 0, imp.err);
  assert.match(imp.err, /22 tasks written to .*tasks\.jsonl, 0 records rejected/);
  assert.match(imp.err, /query docstrings: 22 removed from the code/);

  // One more record whose only test calls nothing: the pre-check rejects it, the rest is built, and build exits 1
  // (README's exit-code table: records were rejected).
  appendFileSync(tasks, JSON.stringify({ task_id: 'nocall', query: 'Negate a number', function_name: 'neg', canonical: 'def neg(x):\n    return -x\n', tests: { kind: 'asserts', tests: ['assert True == True'] } }) + '\n');
  const bench = join(dir, 'cp', 'benchmark');
  const b = await cli('build', '--source', tasks, '--profile', 'check', '--out', bench);
  assert.equal(b.code, 1, b.err);
  assert.match(b.err, /rejected .*nocall \[precheck\] TESTS_DO_NOT_CALL_FUNCTION/);
  // Progress names the build's passes for what they are.
  assert.doesNotMatch(b.err, /attempt/);
  assert.match(b.err, /\d+ mutant round\(s\)/);
  const manifest = JSON.parse(readFileSync(join(bench, 'manifest.json'), 'utf8'));
  const report = JSON.parse(readFileSync(join(bench, 'report.json'), 'utf8'));
  assert.equal(manifest.profile, 'check');
  assert.equal(manifest.counts.queries, 22, b.err);
  // No snippet carries its query: the docstring was spliced out of the canonical, so out of every twin too.
  assert.deepEqual(manifest.query_docstrings, { removed: 22 });
  const four = manifest.distractors_per_task['4'] ?? 0;
  assert.ok(four / 22 >= 0.8, `${four} of 22 tasks have four twins (${JSON.stringify(manifest.distractors_per_task)})`);
  // The loop-over-inputs task keeps its program form and the report says why; the setup and helper tasks split.
  assert.deepEqual(report.check_programs.kept, [{ task_id: 'CP/21', reason: 'an assert inside a loop, helper or block' }]);
  assert.equal(report.check_programs.split.length, 21);
  assert.match(b.err, /check programs kept whole \(one test each\): CP\/21/);
  // The fixture's asserts no candidate can fail (assert True, "..."; assert 1; assert 'x') are dropped, counted per
  // task, and cost no task: without the drop the gate rejected CP/0, CP/4, CP/9 and CP/11 (TEST_DOES_NOT_CALL).
  assert.deepEqual(report.noop_tests, { dropped: 5, by_task: { 'CP/0': 1, 'CP/11': 1, 'CP/4': 1, 'CP/9': 2 } });
  assert.match(b.err, /no-op tests: 5 tests no candidate can fail \(assert True, \.\.\.\) dropped from 4 tasks/);
  assert.deepEqual(report.rejections.map((r: { task_id: string; code: string }) => [r.task_id, r.code]), [['nocall', 'TESTS_DO_NOT_CALL_FUNCTION']]);

  const original = new Map(gunzipSync(readFileSync(fixture)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.task_id, r]));
  const queries = readJsonl(join(bench, 'queries.jsonl'), (v) => QueryRecord.parse(v));
  const corpus = new Map(readJsonl(join(bench, 'corpus.jsonl'), (v) => CorpusRecord.parse(v)).map((c) => [c.corpus_id, c]));
  const byTask = new Map(queries.map((q) => [q.metadata.task_id as string, q]));
  for (const q of queries) {
    assert.equal(q.metadata.query_docstring, 'removed');
    for (const id of [...q.correct_corpus_ids, ...q.distractor_corpus_ids]) assert.ok(!corpus.get(id)!.code.includes(q.query), `${id} carries its query`);
  }
  const setupTask = byTask.get('CP/3')!;
  assert.match(setupTask.test_setup_code!, /^candidate = total_price\ntable = \{'apple': 3/m);
  assert.equal(setupTask.tests.length, 7);
  assert.match(byTask.get('CP/7')!.test_setup_code!, /^def close\(got, want\):/m);
  assert.equal(byTask.get('CP/21')!.tests.length, 0);
  assert.equal(byTask.get('CP/21')!.test_program, original.get('CP/21').test);
  assert.equal(byTask.get('CP/9')!.tests.length, 8);
  assert.ok(byTask.get('CP/9')!.tests.every((t) => t.includes('binary_search(')), 'no no-op test left in CP/9');

  const input = queries.map((q) => {
    const rec = original.get(q.metadata.task_id as string);
    return {
      program: rec.test, entry: rec.entry_point, setup: q.test_setup_code, tests: q.tests,
      codes: [corpus.get(q.correct_corpus_ids[0])!.code, ...q.distractor_corpus_ids.map((id) => corpus.get(id)!.code)],
    };
  });
  type Outcome = 'pass' | 'fail' | 'timeout';
  const verdicts = JSON.parse(execFileSync(pythonExecutable(), ['-I', '-c', VERIFY], { input: JSON.stringify(input), maxBuffer: 1 << 26 }).toString()) as { program: Outcome; tests: Outcome[] }[][];
  /**
   * The oracle runs a suite in one child under one time limit, so after a test that hangs every later test is
   * reported TIMEOUT (schemas/exec.ts): the recorded failing tests are the failures before the first hang, then
   * every test from it on.
   */
  const expectedFailing = (tests: Outcome[]) => {
    const hang = tests.indexOf('timeout');
    return tests.flatMap((o, i) => ((hang >= 0 && i >= hang) || o !== 'pass' ? [i] : []));
  };
  let hangs = 0;
  queries.forEach((q, k) => {
    const [canonical, ...twins] = verdicts[k];
    assert.equal(canonical.program, 'pass', `${q.query_id}: canonical passes the original check program`);
    assert.deepEqual(canonical.tests.filter((o) => o !== 'pass'), [], `${q.query_id}: canonical passes every split test`);
    twins.forEach((t, j) => {
      const item = corpus.get(q.distractor_corpus_ids[j])!;
      assert.notEqual(t.program, 'pass', `${item.corpus_id}: a twin fails the original check program`);
      if (t.tests.includes('timeout')) hangs++;
      if (q.tests.length) assert.deepEqual((item.metadata as { failing_tests: number[] }).failing_tests, expectedFailing(t.tests), `${item.corpus_id}: failing tests as recorded`);
    });
  });
  // The fixture has at least one twin that hangs on some input (binary search with a broken midpoint).
  assert.ok(hangs >= 1);
});

test('build and run exit 3 naming the stage when no task is accepted; run never embeds an empty benchmark', async () => {
  const src = join(dir, 'nocall.jsonl');
  // check() never uses its parameter and the program never names neg(): every mutant would look equivalent.
  writeFileSync(src, JSON.stringify({ task_id: 'n1', query: 'Negate a number', function_name: 'neg', canonical: 'def neg(x):\n    return -x\n', tests: { kind: 'check', program: 'def check(candidate):\n    for x in [1]:\n        assert abs(-x) == x\n', entry_point: 'neg' } }) + '\n');
  const b = await cli('build', '--source', src, '--out', join(dir, 'nb', 'benchmark'));
  assert.equal(b.code, 3, b.err);
  const last = b.err.trim().split('\n').at(-1)!;
  assert.match(last, /^error: build: no task accepted, 1 of 1 records rejected; precheck: 1 \(1 TESTS_DO_NOT_CALL_FUNCTION\) \(details: .*report\.json\)$/);
  assert.doesNotMatch(b.err, /\n\s+at /, 'no stack trace');

  const runDir = join(dir, 'run-empty');
  const r = await cli('run', '--source', src, '--run', runDir, '--profile', 'check', '--cap', '8');
  assert.equal(r.code, 3, r.err);
  assert.match(r.err.trim().split('\n').at(-1)!, /^error: run stopped at build: build: no task accepted, .*precheck: 1/);
  const m = JSON.parse(readFileSync(join(runDir, 'benchmark', 'manifest.json'), 'utf8'));
  assert.deepEqual([m.profile, m.mutation.cap], ['check', 8], 'run passes --profile and --cap to build');
  assert.equal(existsSync(join(runDir, 'embeddings')), false, 'nothing embedded');

  // A rerun finds the empty benchmark the failed build left and stops before embedding.
  const again = await cli('run', '--source', src, '--run', runDir);
  assert.equal(again.code, 3, again.err);
  assert.match(again.err, /error: run: .*queries\.jsonl has no queries \(the build accepted no task; see .*report\.json\); fix the source and run again with --rebuild/);
  assert.equal(existsSync(join(runDir, 'embeddings')), false, 'nothing embedded');
});
