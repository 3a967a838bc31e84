import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GoldCase } from '../../schemas/gold.ts';
import type { RankedChunk, RetrievalRecord } from '../../schemas/repoIndex.ts';
import { sha256 } from '../../activities/repo/runOutput.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { tmpDir } from './helpers.ts';
import { cli } from './cliHarness.ts';

/**
 * Verified replays (issue 29): a replayed record may say which chunk ids were ranked in which order, nothing
 * more. Each tampering below turned a failing case into a passing one when the replay trusted the record;
 * each must now be refused, and the gate on what is left must not pass.
 */
const r = new FixtureRepo();
const work = tmpDir('execretrieval-replay-');
after(() => r.cleanup());

// Ten modules talk about widget totals at length; the one that defines the computation says it once, so
// plain BM25 ranks it below the cutoff (the precondition is asserted, not assumed).
const fillers = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [
    `src/reports/report${i}.ts`,
    `/** Report ${i}: widget totals, widget totals per region, widget totals computed nightly. */\nexport function report${i}(totals: number[]) {\n  return totals.map((t) => t * ${i + 1}); // widget totals\n}\n`,
  ]),
);
const rev = r.commit('fixture', {
  ...fillers,
  'src/core/total.ts': `/** Sums the widget line items of an order, tax included. */\nexport function widgetTotal(items: { price: number; qty: number }[], taxRate: number): number {\n  const net = items.reduce((s, it) => s + it.price * it.qty, 0);\n  return net * (1 + taxRate);\n}\n`,
});

const theCase: GoldCase = {
  id: 'widget-total',
  query: 'how are widget totals computed',
  repositoryRevision: rev,
  evidence: [{ id: 'definition', anyOf: [{ file: 'src/core/total.ts', symbol: 'widgetTotal', roles: ['definition'] }] }],
  forbiddenPathPrefixes: [],
  cutoff: 3,
  queryClass: 'behaviour_description',
  rationale: 'widgetTotal is where the total is computed.',
};

const index = join(work, 'index');
const cases = join(work, 'cases.jsonl');
const run = join(work, 'run');
let record: RetrievalRecord;
let targetRank: number;

const gate = (dir: string) => cli('gate', '--run', dir, '--retriever', 'bm25', '--min-evidence', '1');
const replay = (from: string, out: string) => cli('eval', '--index', index, '--cases', cases, '--mode', 'recorded', '--recorded', from, '--out', out);
const reRanked = (list: RankedChunk[]) => list.map((c, i) => ({ ...c, rank: i + 1 }));

/** A copy of the run whose records.jsonl is `records`; `rehash` also rewrites the hash in summary.json (a forger who knows the format). */
function tampered(name: string, records: RetrievalRecord[], rehash: boolean): string {
  const dir = join(work, name);
  cpSync(run, dir, { recursive: true });
  const text = records.map((x) => JSON.stringify(x)).join('\n') + '\n';
  writeFileSync(join(dir, 'records.jsonl'), text);
  if (rehash) {
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    writeFileSync(join(dir, 'summary.json'), JSON.stringify({ ...summary, records_sha256: sha256(text) }));
  }
  return dir;
}

/** The target moved to rank 1 (renumbered, scores kept), and the final context re-cut to match. */
function moveTargetFirst(rec: RetrievalRecord): RetrievalRecord {
  const after = rec.candidates_after_rerank;
  const i = after.findIndex((c) => c.file === 'src/core/total.ts');
  const moved = reRanked([after[i], ...after.slice(0, i), ...after.slice(i + 1)]);
  return { ...rec, candidates_after_rerank: moved, final_context_ids: moved.slice(0, theCase.cutoff).map((c) => c.chunk_id) };
}

before(async () => {
  writeFileSync(cases, JSON.stringify(theCase) + '\n');
  assert.equal((await cli('index', '--repo', r.dir, '--rev', rev, '--out', index)).code, 0);
  const ev = await cli('eval', '--index', index, '--cases', cases, '--retrievers', 'bm25', '--variants', 'plain', '--run-id', 'run-live', '--out', run);
  assert.equal(ev.code, 0, ev.err);
  [record] = readFileSync(join(run, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  targetRank = record.candidates_after_rerank.findIndex((c) => c.file === 'src/core/total.ts') + 1;
  assert.ok(targetRank > theCase.cutoff, `precondition: the target ranks below the cutoff (rank ${targetRank})`);
  assert.equal((await gate(run)).code, 1, 'precondition: the honest run fails the gate');
});

test('records carry their run id, and summary.json the hashes of records.jsonl and results.jsonl', () => {
  const summary = JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8'));
  assert.equal(record.run_id, 'run-live');
  assert.equal(summary.run_id, 'run-live');
  assert.equal(summary.records_sha256, sha256(readFileSync(join(run, 'records.jsonl'))));
  assert.equal(summary.results_sha256, sha256(readFileSync(join(run, 'results.jsonl'))));
});

test('an honest replay names its run, scores the same and is replayable in turn', async () => {
  const out = join(work, 'replay-clean');
  const rp = await replay(run, out);
  assert.equal(rp.code, 0, rp.err);
  const [a, b] = [run, out].map((d) => JSON.parse(readFileSync(join(d, 'results.jsonl'), 'utf8')));
  assert.deepEqual({ ...b, mode: 'live' }, a);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  assert.deepEqual(summary.replay_of, { run_id: 'run-live', records_sha256: sha256(readFileSync(join(run, 'records.jsonl'))) });
  assert.deepEqual(summary.rejected_records, []);
  const again = await replay(join(out, 'records.jsonl'), join(work, 'replay-of-replay'));
  assert.equal(again.code, 0, again.err);
});

test('an edited records.jsonl is refused whole, one line naming the file and the run (moved rank, changed query)', async () => {
  for (const [name, rec] of [
    ['moved', moveTargetFirst(record)],
    ['query', { ...record, query: 'widgetTotal' }],
  ] as const) {
    const out = join(work, `out-edited-${name}`);
    const rp = await replay(tampered(`edited-${name}`, [rec], false), out);
    assert.equal(rp.code, 2, name);
    assert.match(rp.err, /^error: .*edited-\w+\/records\.jsonl: sha256 [0-9a-f]{12}… is not the [0-9a-f]{12}… run run-live recorded in summary\.json: the records were edited after the run; refusing to replay them$/);
    assert.notEqual((await gate(out)).code, 0, `${name}: nothing to gate is not a pass`);
  }
});

test('a run without the binding (written before it, or its summary lost) cannot be replayed: one line, exit 2', async () => {
  const dir = join(work, 'unbound');
  cpSync(run, dir, { recursive: true });
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  delete summary.records_sha256;
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  const rp = await replay(dir, join(work, 'out-unbound'));
  assert.equal(rp.code, 2);
  assert.match(rp.err, /^error: .*unbound\/summary\.json: records_sha256: .*a run written before records were bound to their run cannot be replayed; re-run repo eval\)$/);
});

test('records rewritten with a matching hash are still refused record by record; eval exits 1 and the gate fails', async () => {
  const chunks = readFileSync(join(index, 'chunks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const target = chunks.find((c) => c.file === 'src/core/total.ts');
  const claimAt1 = (patch: Partial<RankedChunk>) => {
    const after = record.candidates_after_rerank.map((c, i) => (i === 0 ? { ...c, ...patch } : c));
    return { ...record, candidates_after_rerank: after };
  };
  const tamperings: [string, RetrievalRecord, RegExp][] = [
    ['another file', claimAt1({ file: 'src/core/total.ts' }), /chunk \S+ \(rank 1\) claims file src\/core\/total\.ts, the index has src\/reports\//],
    ['another symbol', claimAt1({ symbols: ['widgetTotal'] }), /chunk \S+ \(rank 1\) claims symbols \[widgetTotal\], the index has \[report\d\]/],
    ['another role', claimAt1({ role: 'test' }), /chunk \S+ \(rank 1\) claims role test, the index has definition/],
    ['nonexistent chunk', claimAt1({ chunk_id: `${target.chunk_id}x`, file: target.file, symbols: target.symbols }), /chunk \S+x \(rank 1\) is not in index build /],
    ['foreign build', { ...record, index_build_id: 'f'.repeat(64) }, /ranked on index build f{64}, this index is build /],
    ['moved rank', moveTargetFirst(record), /rank 2 \(\S+\) scores [\d.]+, above rank 1 .*not a ranking/],
    ['changed query', { ...record, query: 'where is widgetTotal defined' }, /query "where is widgetTotal defined" is not the gold case's "how are widget totals computed"/],
    ['another run', { ...record, run_id: 'run-other' }, /written by run run-other, not by run run-live/],
  ];
  for (const [name, rec, reason] of tamperings) {
    const out = join(work, `out-forged-${name.replace(/ /g, '-')}`);
    const rp = await replay(tampered(`forged-${name.replace(/ /g, '-')}`, [rec], true), out);
    assert.equal(rp.code, 1, `${name}: ${rp.err}`);
    assert.match(rp.err, new RegExp(`^rejected record widget-total \\[bm25\\] of run run-live: (candidates_after_rerank: )?${reason.source}`, 'm'), name);
    // The printed pass rate counts the rejected record: 0 of 1, not a row left out (nor 0 of 0).
    assert.match(rp.out, /^bm25 +1 +0\.0% +\(every record rejected\)$/m, `${name}: ${rp.out}`);
    const g = await gate(out);
    assert.equal(g.code, 1, `${name}: ${g.out}`);
    assert.match(g.out, /FAIL {2}replayed records verified: 1 rejected: widget-total \[bm25\]: /, name);
  }
});

test('an edited results.jsonl fails the gate (its hash is in summary.json)', async () => {
  const dir = join(work, 'results-edited');
  cpSync(run, dir, { recursive: true });
  const res = JSON.parse(readFileSync(join(run, 'results.jsonl'), 'utf8'));
  writeFileSync(join(dir, 'results.jsonl'), JSON.stringify({ ...res, passed: true, required_evidence: true, missing_group_ids: [] }) + '\n');
  const g = await gate(dir);
  assert.equal(g.code, 1, g.out);
  assert.match(g.out, /FAIL {2}results as the run wrote them: results\.jsonl hashes to [0-9a-f]{12}…, the run recorded [0-9a-f]{12}… \(edited after the run\)/);
});
