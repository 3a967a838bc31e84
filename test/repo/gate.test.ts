import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';
import { buildIndex } from '../../activities/repo/indexBuild.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { hashEmbedder } from './hashEmbedder.ts';
import { tmpDir } from './helpers.ts';
import { cli, cliProcess } from './cliHarness.ts';
import { SESSION_FILES, sessionExpiryCase } from './worked-fixtures.ts';

/**
 * The gate fails closed: each way the issue found to make `repo gate` pass a run it cannot vouch for is
 * reproduced here with the fault itself, and must fail with its reason. Usage and input errors exit 2 with
 * one line; a failed gate exits 1.
 */
const r = new FixtureRepo();
const work = tmpDir('execretrieval-gate-');
after(() => r.cleanup());
const rev = r.commit('fixture', SESSION_FILES);
const other = r.commit('another commit', { 'src/auth/extra.ts': 'export const extra = 1;\n' });

const goodCase = sessionExpiryCase(rev);
const index = join(work, 'index');
const cases = join(work, 'cases.jsonl');
const run = join(work, 'run');
const gate = (dir: string, ...extra: string[]) => cli('gate', '--run', dir, '--retriever', 'bm25', '--min-evidence', '1', ...extra);

before(async () => {
  writeFileSync(cases, JSON.stringify(goodCase) + '\n');
  // Legacy excluded: the good case passes, so every failure below is the fooling fault's alone.
  assert.equal((await cli('index', '--repo', r.dir, '--rev', rev, '--out', index, '--exclude', 'src/legacy/**')).code, 0);
  // No --repo: the repository is the one the index manifest records (the fixture, not this project).
  const ev = await cli('eval', '--index', index, '--cases', cases, '--retrievers', 'bm25,hybrid_rrf', '--variants', 'plain', '--out', run);
  assert.equal(ev.code, 0, ev.err);
});

test('the clean run passes the gate (the baseline every fooling case departs from)', async () => {
  const g = await gate(run, '--expect-rev', rev, '--slice-min', 'query_class=behaviour_description:1:1');
  assert.equal(g.code, 0, g.out + g.err);
  assert.match(g.out, /PASS {2}gold cases valid: none rejected/);
  assert.match(g.out, /gate: passed/);
});

test('rejected gold cases fail the gate, even when every case that ran passed', async () => {
  const bad = join(work, 'cases-bad.jsonl');
  writeFileSync(bad, [JSON.stringify(goodCase), JSON.stringify({ ...goodCase, id: 'b1', cutoff: 'five' }), JSON.stringify({ ...goodCase, id: 'b2', queryClass: 'vibes' })].join('\n') + '\n');
  const dir = join(work, 'run-bad');
  const ev = await cli('eval', '--index', index, '--cases', bad, '--retrievers', 'bm25', '--variants', 'plain', '--out', dir);
  assert.equal(ev.code, 2, 'eval exits 2 on rejected cases (after running the good ones)');
  const g = await gate(dir);
  assert.equal(g.code, 1, g.out);
  assert.match(g.out, /FAIL {2}gold cases valid: 2 rejected: .*cases-bad\.jsonl:2 \(b1\) cutoff: .*cases-bad\.jsonl:3 \(b2\) queryClass: /);
  assert.match(g.out, /PASS {2}required evidence at cutoff: 100\.0% \(1\/1\)/, 'the one case that ran passed: only the rejections fail the gate');
});

test('stale gold fails closed: a target absent at the pinned revision is a listed gold error, and fails the gate unless allowed', async () => {
  const staleCases = join(work, 'cases-stale.jsonl');
  // The first case still passes (its group has a live alternative) but names a file the commit does not
  // have; the second names a symbol its file does not define. Both are stale labels the gate must see.
  const alt = { ...goodCase, evidence: [{ id: 'service', anyOf: [...goodCase.evidence[0].anyOf, { file: 'src/auth/session.ts', symbol: 'createSession', roles: ['definition'] }] }] };
  const gone = { ...goodCase, id: 'gone', evidence: [{ id: 'validator', anyOf: [{ file: 'src/auth/validate.ts', symbol: 'assertFresh', roles: ['definition'] }] }] };
  writeFileSync(staleCases, [JSON.stringify(alt), JSON.stringify(gone)].join('\n') + '\n');
  const dir = join(work, 'run-stale');
  const ev = await cli('eval', '--index', index, '--cases', staleCases, '--retrievers', 'bm25', '--variants', 'plain', '--out', dir);
  assert.equal(ev.code, 1, 'eval ran every case, and says the gold is stale');
  assert.match(ev.err, /stale gold case: .*cases-stale\.jsonl:1 \(session-expiry\) evidence\.0\.anyOf\.1: stale gold label: src\/auth\/session\.ts does not exist at /);
  assert.match(ev.err, /stale gold case: .*cases-stale\.jsonl:2 \(gone\) evidence\.0\.anyOf\.0: stale gold label: assertFresh is not defined in src\/auth\/validate\.ts at /);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  assert.deepEqual(summary.gold_errors.map((e: { case_id: string; kind: string }) => [e.case_id, e.kind]), [['session-expiry', 'stale_target'], ['gone', 'stale_target']]);
  const results = readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(results.map((x) => [x.case_id, x.passed, x.diagnosis]), [['session-expiry', true, 'passed'], ['gone', false, 'stale_gold_label']]);

  const g = await cli('gate', '--run', dir, '--retriever', 'bm25', '--min-evidence', '0.5');
  assert.equal(g.code, 1, g.out);
  assert.match(g.out, /FAIL {2}gold targets exist at their revision: 2 stale: .*session-expiry.*; .*gone/);
  assert.match(g.out, /PASS {2}required evidence at cutoff: 50\.0% \(1\/2\)/, 'only the stale labels fail this gate');
  const allowed = await cli('gate', '--run', dir, '--retriever', 'bm25', '--min-evidence', '0.5', '--allow-stale-gold');
  assert.equal(allowed.code, 0, allowed.out);
  assert.match(allowed.out, /PASS {2}gold targets exist at their revision: 2 stale: .*\(allowed by --allow-stale-gold\)/);
  const clean = await gate(run);
  assert.match(clean.out, /PASS {2}gold targets exist at their revision: none stale/);
});

test('a missing retriever component is an error, and names encode components so the gate cannot mistake one for another', async () => {
  const results = readFileSync(join(run, 'results.jsonl'), 'utf8');
  assert.match(results, /"retriever":"hybrid_rrf\(bm25\+symbol\)"/, 'a lexical-only hybrid says so in its name');
  for (const name of ['hybrid_rrf', 'hybrid_rrf(bm25+symbol+dense:local-all-minilm-l6-v2)']) {
    const g = await cli('gate', '--run', run, '--retriever', name, '--min-evidence', '0');
    assert.equal(g.code, 1, name);
    assert.match(g.out, /FAIL {2}configuration in run: no results for .*; the run has bm25, hybrid_rrf\(bm25\+symbol\)/);
  }
  assert.equal((await cli('gate', '--run', run, '--retriever', 'hybrid_rrf(bm25+symbol)', '--min-evidence', '1')).code, 0);

  // An index with vectors whose embedding configuration cannot be loaded: eval refuses to run the dense
  // configurations (exit 2, one line) instead of fusing the lexical parts under the hybrid's name.
  const dense = join(work, 'index-dense');
  await buildIndex({ repoDir: r.dir, revision: rev, policy: defaultPolicy({ exclude: ['src/legacy/**'] }), outDir: dense, embedder: hashEmbedder(32) });
  const ev = await cli('eval', '--index', dense, '--cases', cases, '--retrievers', 'bm25,hybrid_rrf', '--variants', 'plain', '--out', join(work, 'run-dense'));
  assert.equal(ev.code, 2);
  assert.match(ev.err, /^error: dense retrieval \(test-hash-32\) unavailable: embedding configuration "test-hash-32" is not in the registry.*pass --retrievers bm25,symbol$/);
  assert.equal(ev.err.split('\n').length, 1, 'one line, no stack trace');
  const lexical = await cli('eval', '--index', dense, '--cases', cases, '--retrievers', 'bm25', '--variants', 'plain', '--out', join(work, 'run-dense-bm25'));
  assert.equal(lexical.code, 0, 'asking only for lexical retrievers needs no model');
});

test('an unknown slice name: a usage error when the dimension has a closed set of values, a failed check naming the slices otherwise', async () => {
  const typo = await gate(run, '--slice-min', 'query_class=behavior_description:0.9');
  assert.equal(typo.code, 2);
  assert.match(typo.err, /^error: slice minimum "query_class=behavior_description:0\.9": unknown query_class "behavior_description" \(one of exact_identifier, behaviour_description/);
  const area = await gate(run, '--slice-min', 'area=scr:0.5');
  assert.equal(area.code, 1);
  assert.match(area.out, /FAIL {2}slice area=scr: no case has area=scr \(the run's area slices: src\)/);
});

test('revision mismatches fail the gate: another expected commit, results of another index, a case scored at another revision', async () => {
  const g = await gate(run, '--expect-rev', other);
  assert.equal(g.code, 1);
  assert.match(g.out, new RegExp(`FAIL {2}revision integrity: index built from ${rev}, expected ${other}`));

  // results.jsonl spliced from a run of another index (same case ids, same names): the summary's index disagrees.
  const spliced = join(work, 'run-spliced');
  cpSync(run, spliced, { recursive: true });
  const lines = readFileSync(join(run, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  writeFileSync(join(spliced, 'results.jsonl'), lines.map((x) => JSON.stringify({ ...x, index_revision: other, case_revision: other, index_build_id: 'elsewhere' })).join('\n') + '\n');
  const s = await gate(spliced);
  assert.equal(s.code, 1);
  assert.match(s.out, new RegExp(`FAIL {2}revision integrity: session-expiry: scored against index elsewhere at ${other}, the run's index is`));

  // A result whose case is pinned to another commit than the one it was scored at (a replayed record).
  const replayed = join(work, 'run-replayed');
  cpSync(run, replayed, { recursive: true });
  writeFileSync(join(replayed, 'results.jsonl'), lines.map((x) => JSON.stringify({ ...x, case_revision: other.slice(0, 12) })).join('\n') + '\n');
  const p = await gate(replayed);
  assert.equal(p.code, 1);
  assert.match(p.out, new RegExp(`FAIL {2}revision integrity: session-expiry: pinned to ${other.slice(0, 12)}, scored at ${rev}`));

  // A case pinned to another commit is refused at eval time, and the refusal fails the gate.
  const pinnedElsewhere = join(work, 'cases-other.jsonl');
  writeFileSync(pinnedElsewhere, [JSON.stringify(goodCase), JSON.stringify({ ...goodCase, id: 'other', repositoryRevision: other })].join('\n') + '\n');
  const dir = join(work, 'run-other');
  assert.equal((await cli('eval', '--index', index, '--cases', pinnedElsewhere, '--retrievers', 'bm25', '--variants', 'plain', '--out', dir)).code, 0);
  const o = await gate(dir);
  assert.equal(o.code, 1);
  assert.match(o.out, /FAIL {2}revision integrity: other refused: pinned to /);
});

test('usage and input errors: one line, exit 2 (a failed gate is 1)', async () => {
  const missingCases = await cli('eval', '--index', index, '--cases', join(work, 'nope.jsonl'), '--retrievers', 'bm25');
  assert.deepEqual([missingCases.code, missingCases.err], [2, `error: --cases ${join(work, 'nope.jsonl')}: no such file or directory`]);
  const badRev = await cli('index', '--repo', r.dir, '--rev', 'deadbeef', '--out', join(work, 'x'));
  assert.equal(badRev.code, 2);
  assert.equal(badRev.err, `error: "deadbeef" is not a commit in ${r.dir}`);
  const branch = await gate(run, '--expect-rev', 'main');
  assert.equal(branch.code, 2);
  assert.match(branch.err, /^error: --expect-rev: "main" is not a commit id/);
  const noRun = await gate(join(work, 'no-such-run'));
  assert.equal(noRun.code, 2);
  assert.match(noRun.err, /^error: .*results\.jsonl: no results/);
  const oldSummary = join(work, 'run-old');
  cpSync(run, oldSummary, { recursive: true });
  const summary = JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8'));
  delete summary.gold_errors;
  writeFileSync(join(oldSummary, 'summary.json'), JSON.stringify(summary));
  const old = await gate(oldSummary);
  assert.equal(old.code, 2, 'a summary without gold_errors cannot vouch for its gold cases');
  assert.match(old.err, /summary\.json: gold_errors: /);
  const badRate = await gate(run, '--min-evidence', 'high');
  assert.deepEqual([badRate.code, badRate.err], [2, 'error: --min-evidence: "high" is not a rate within [0, 1]']);

  // Commander's own usage errors exit 2 as well, in a real process (no stack trace).
  const forgot = cliProcess('eval', '--cases', cases);
  assert.equal(forgot.code, 2);
  assert.match(forgot.err, /required option '--index <dir>' not specified/);
  assert.doesNotMatch(forgot.err, /\n\s+at /);
  const failed = cliProcess('gate', '--run', join(work, 'run-bad'), '--retriever', 'bm25');
  assert.equal(failed.code, 1, 'a failed gate is exit 1 in a real process');
  const noIndex = cliProcess('eval', '--index', join(work, 'no-index'), '--cases', cases);
  assert.equal(noIndex.code, 2);
  assert.match(noIndex.err, /^error: .*manifest\.json: no index manifest/m);
  assert.doesNotMatch(noIndex.err, /\n\s+at /);
});

test('files over the size limit are listed in the eval summary and on stderr, not dropped silently', async () => {
  const big = new FixtureRepo();
  try {
    const rv = big.commit('big file', { ...SESSION_FILES, 'src/types.d.ts': `export type T = string;\n${'// padding\n'.repeat(40)}` });
    const ix = join(work, 'index-small');
    assert.equal((await cli('index', '--repo', big.dir, '--rev', rv, '--out', ix, '--max-file-bytes', '300')).code, 0);
    const c = join(work, 'cases-big.jsonl');
    writeFileSync(c, JSON.stringify({ ...goodCase, repositoryRevision: rv }) + '\n');
    const dir = join(work, 'run-big');
    const ev = await cli('eval', '--index', ix, '--cases', c, '--retrievers', 'bm25', '--variants', 'plain', '--out', dir);
    assert.match(ev.err, /not indexed \(over maxFileBytes 300\): src\/types\.d\.ts \(\d+ bytes\)/);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const sizes = new Map(Object.entries({ ...SESSION_FILES }).map(([p, t]) => [p, Buffer.byteLength(t)]));
    const expected = [...sizes].filter(([, n]) => n > 300).map(([p]) => p).concat('src/types.d.ts').sort();
    assert.ok(expected.length >= 2);
    assert.deepEqual(summary.oversize_files.map((f: { path: string }) => f.path).sort(), expected);
  } finally {
    big.cleanup();
  }
});
