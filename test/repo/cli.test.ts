import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';
import { readParquet } from '../../activities/storage/parquet.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { tmpDir } from './helpers.ts';
import { SESSION_FILES, sessionExpiryCase } from './worked-fixtures.ts';
import { cli, cliProcess } from './cliHarness.ts';

/** The real CLI end to end on a fixture repository: index → eval → diagnose → gate, then a recorded replay. */
const r = new FixtureRepo();
const work = tmpDir('execretrieval-cli-');
after(() => r.cleanup());
const rev = r.commit('fixture', SESSION_FILES);

test('repo index | eval | diagnose | gate, and recorded replay', async () => {
  const goodCase = sessionExpiryCase(rev);
  const cases = join(work, 'cases.jsonl');
  writeFileSync(cases, [JSON.stringify(goodCase), JSON.stringify({ ...goodCase, id: 'broken', cutoff: 'five' })].join('\n') + '\n');

  const index = join(work, 'index');
  const ix = await cli('index', '--repo', r.dir, '--rev', rev, '--out', index);
  assert.equal(ix.code, 0, ix.err);
  assert.match(ix.out, new RegExp(`revision ${rev}`));
  const manifest = JSON.parse(readFileSync(join(index, 'manifest.json'), 'utf8'));
  assert.equal(manifest.completed, true);
  assert.equal(manifest.revision, rev);

  const run = join(work, 'run');
  const ev = await cli('eval', '--index', index, '--cases', cases, '--repo', r.dir, '--retrievers', 'bm25', '--variants', 'plain', '--out', run);
  assert.equal(ev.code, 2, 'a bad gold case makes the exit code 2, after the good ones ran');
  assert.match(ev.err, /cases\.jsonl:2 \(broken\) cutoff: /);
  assert.match(ev.out, /^bm25\s+1\s/m);
  for (const f of ['report.html', 'results.parquet', 'results.jsonl', 'records.jsonl', 'aggregates.json', 'summary.json', 'cases/bm25/session-expiry.json', 'evidence/bm25/session-expiry.json']) {
    assert.ok(existsSync(join(run, f)), f);
  }
  const table = readParquet(join(run, 'results.parquet'));
  assert.equal(table.numRows, 1);
  assert.equal(table.getChild('diagnosis')!.get(0), 'forbidden_source_in_context');
  // pyarrow (a reader users have) opens the same file, and its list columns read as lists, not JSON text.
  const lists = ['missing_group_ids', 'forbidden_chunk_ids', 'revision_mismatches', 'final_context_ids'];
  const code = 'import sys, json, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(t.num_rows, t.column("case_id")[0]); print(json.dumps({n: [str(t.schema.field(n).type), t.column(n).to_pylist()[0]] for n in sys.argv[2:]}))';
  const py = spawnSync(join(projectRoot(), '.venv', 'bin', 'python'), ['-c', code, join(run, 'results.parquet'), ...lists], { encoding: 'utf8' });
  const [head, typed] = py.stdout.trim().split('\n');
  assert.equal(head, '1 session-expiry', py.stderr || pythonExecutable());
  const jsonl = JSON.parse(readFileSync(join(run, 'results.jsonl'), 'utf8').split('\n')[0]);
  for (const n of lists) {
    const [type, value] = JSON.parse(typed)[n];
    assert.match(type, /^list<(item|element): string/, n);
    assert.deepEqual(value, jsonl[n], n);
  }
  assert.ok((jsonl.forbidden_chunk_ids as string[]).length > 0, 'a non-empty list is among those compared');
  assert.match(readFileSync(join(run, 'report.html'), 'utf8'), /forbidden_source_in_context/);

  const dg = await cli('diagnose', '--run', run);
  assert.equal(dg.code, 0, dg.err);
  assert.match(dg.out, /CASE session-expiry \[bm25\]/);
  assert.match(dg.out, /rank=1 file=src\/legacy\/session\.ts symbol=createSession role=definition/);
  assert.match(dg.out, /diagnosis=forbidden_source_in_context first_relevant_rank=2/);

  const gateFail = cliProcess('gate', '--run', run, '--retriever', 'bm25', '--min-evidence', '1');
  assert.equal(gateFail.code, 1);
  assert.match(gateFail.out, /FAIL {2}forbidden sources in context: 1 case\(s\): session-expiry/);
  assert.match(gateFail.out, /FAIL {2}gold cases valid: 1 rejected: .*cases\.jsonl:2 \(broken\) cutoff: /);
  assert.match(gateFail.out, /gate: FAILED \(2 check\(s\) missed\)/);

  // Recorded mode: replay the stored rankings through the evaluator; same verdicts.
  const replay = join(work, 'replay');
  const rp = await cli('eval', '--index', index, '--cases', cases, '--repo', r.dir, '--mode', 'recorded', '--recorded', run, '--out', replay);
  assert.equal(rp.code, 2, rp.err);
  const a = JSON.parse(readFileSync(join(run, 'results.jsonl'), 'utf8'));
  const b = JSON.parse(readFileSync(join(replay, 'results.jsonl'), 'utf8'));
  assert.deepEqual({ ...b, mode: 'live' }, a);

  // Excluding the legacy directory at index time (and leaving out the broken case) makes the gate pass.
  const index2 = join(work, 'index2');
  assert.equal((await cli('index', '--repo', r.dir, '--rev', rev, '--out', index2, '--exclude', 'src/legacy/**')).code, 0);
  const run2 = join(work, 'run2');
  const goodOnly = join(work, 'good.jsonl');
  writeFileSync(goodOnly, JSON.stringify(goodCase) + '\n');
  await cli('eval', '--index', index2, '--cases', goodOnly, '--repo', r.dir, '--retrievers', 'bm25', '--variants', 'plain', '--out', run2);
  const gatePass = await cli('gate', '--run', run2, '--retriever', 'bm25', '--min-evidence', '1', '--slice-min', 'query_class=behaviour_description:1:1');
  assert.equal(gatePass.code, 0, gatePass.out + gatePass.err);
  assert.match(gatePass.out, /gate: passed/);
});
