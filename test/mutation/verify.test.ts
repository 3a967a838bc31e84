// Mutation + verification against the real execution oracle (sandboxed Python children).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { mutateAndVerify, type MutationJob } from '../../activities/mutation/verify.ts';
import { isBareFailure } from '../../schemas/exec.ts';

let oracle: Oracle;
before(async () => {
  oracle = await openOracle({ cachePath: null, concurrency: 2 });
});
after(async () => {
  await oracle.close();
});

const clamp: MutationJob = {
  task_id: 'clamp',
  function_name: 'clamp_count',
  canonical: [
    'def clamp_count(xs, lo, hi):',
    '    """Count values in [lo, hi]."""',
    '    if lo > hi:',
    '        raise ValueError("empty range")',
    '    n = 0',
    '    for x in xs:',
    '        if x >= lo and x <= hi:',
    '            n += 1',
    '    return n',
    '',
  ].join('\n'),
  suite: {
    kind: 'asserts',
    tests: [
      'assert clamp_count([1, 2, 3], 1, 3) == 3',
      'assert clamp_count([1, 2, 3], 2, 2) == 1',
      'assert clamp_count([], 0, 5) == 0',
      'assert clamp_count([5, 6, 7], 6, 10) == 2',
      'assert clamp_count([-1, 0, 1], 0, 0) == 1',
      'try:\n    clamp_count([1], 3, 2)\n    assert False, "no error"\nexcept ValueError:\n    pass',
      'assert clamp_count([10, 20], 0, 9) == 0',
    ],
  },
};
const failing: MutationJob = { task_id: 'bad', function_name: 'f', canonical: 'def f(x):\n    return x + 1\n', suite: { kind: 'asserts', tests: ['assert f(1) == 3'] } };
const nothing: MutationJob = { task_id: 'none', function_name: 'g', canonical: 'def g(s):\n    s.clear()\n', suite: { kind: 'asserts', tests: ['assert g([1]) is None'] } };

test('selected mutants verifiably fail with wrong output; bad tasks are rejected with reasons; deterministic', async () => {
  const jobs = [failing, clamp, nothing];
  const out = await mutateAndVerify(jobs, oracle, { seed: 1, mutator: { cachePath: null } });
  assert.equal(out[0].rejection?.code, 'CANONICAL_FAILS');
  assert.match(out[0].rejection!.message, /tests\[0\]: FAIL/);
  assert.equal(out[2].rejection?.code, 'NO_CANDIDATES');

  const c = out[1];
  assert.equal(c.rejection, undefined);
  assert.equal(c.distractors.length, 4);
  assert.ok(new Set(c.distractors.map((d) => d.bug_type)).size >= 3, 'diverse bug types');
  assert.ok(new Set(c.distractors.map((d) => d.failing_tests!.join())).size >= 2, 'not all the same failing subset');
  // Independent re-check: each distractor, run again, fails exactly the recorded tests, one by wrong output.
  const rerun = await oracle.runMany(c.distractors.map((d) => ({ code: d.code, suite: clamp.suite })));
  c.distractors.forEach((d, i) => {
    const failed = rerun[i].outcomes.flatMap((o, t) => (o === 'pass' ? [] : [t]));
    assert.deepEqual(failed, d.failing_tests);
    assert.ok(rerun[i].outcomes.some(isBareFailure));
    assert.match(d.bug_description, new RegExp(`^${d.bug_type} at line ${d.span!.line}: `));
    // One span: the canonical's bytes around the span are untouched.
    const canon = Buffer.from(clamp.canonical);
    const mut = Buffer.from(d.code);
    assert.deepEqual(mut.subarray(0, d.span!.start), canon.subarray(0, d.span!.start));
    assert.deepEqual(mut.subarray(mut.length - (canon.length - d.span!.end)), canon.subarray(d.span!.end));
  });
  // Every verified verdict agrees with its counts; equivalents exist among tried (e.g. `n += 1` variants) or not,
  // but kept ones must all have a bare failure.
  for (const v of c.verified) if (v.verdict === 'kept') assert.ok(v.failing_tests.length > 0);
  assert.ok(c.verified.length < c.candidates.length, 'stopped early: not every candidate was verified');

  const again = await mutateAndVerify(jobs, oracle, { seed: 1, mutator: { cachePath: null } });
  assert.deepEqual(again.map((o) => o.distractors), out.map((o) => o.distractors));
});

test('a canonical over 1 s of CPU, or out of time, is CANONICAL_TOO_SLOW whatever the load; 0.9 s goes on to its mutants', async () => {
  // The real oracle runs the suites; only the canonical's measured CPU time (or a timeout) is what the case sets.
  const cases: [string, (r: Awaited<ReturnType<Oracle['run']>>) => Awaited<ReturnType<Oracle['run']>>, string | undefined][] = [
    ['cpu 1.5 s', (r) => ({ ...r, cpu_ms: 1500 }), 'CANONICAL_TOO_SLOW'],
    ['timed out', (r) => ({ ...r, passed: false, outcomes: r.outcomes.map((o, t) => (t === 0 ? 'TIMEOUT' : o)) }), 'CANONICAL_TOO_SLOW'],
    ['cpu 0.9 s', (r) => ({ ...r, cpu_ms: 900 }), undefined],
  ];
  for (const [name, edit, code] of cases) {
    const wrapped: Oracle = {
      run: async (req) => (req.code === clamp.canonical ? edit(await oracle.run(req)) : oracle.run(req)),
      runMany: (reqs) => Promise.all(reqs.map((r) => wrapped.run(r))),
      close: async () => {},
    };
    const [out] = await mutateAndVerify([clamp], wrapped, { seed: 1, mutator: { cachePath: null } });
    assert.equal(out.rejection?.code, code, name);
    if (code) assert.match(out.rejection!.message, /more than 1 s of CPU time/);
    else assert.equal(out.mutant_timeout_s, 3, '0.9 s of CPU: 5x is 4.5 s, capped at the old 3 s tier');
  }
});

test('a canonical that really needs seconds of CPU is stopped at the 1 s bound and rejected as too slow', async () => {
  const slow: MutationJob = {
    task_id: 'slow', function_name: 'total',
    canonical: 'def total(n):\n    s = 0\n    for i in range(n):\n        s += i % 7\n    return s\n',
    suite: { kind: 'asserts', tests: ['assert total(100_000_000) >= 0'] },
  };
  const t0 = performance.now();
  const [out] = await mutateAndVerify([slow], oracle, { seed: 1, mutator: { cachePath: null } });
  assert.equal(out.rejection?.code, 'CANONICAL_TOO_SLOW');
  assert.equal(out.verified.length, 0, 'no mutant was run');
  assert.ok(performance.now() - t0 < 30_000);
});
