import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GoldCase } from '../../schemas/gold.ts';
import type { CaseResult, Chunk, RetrievalRecord } from '../../schemas/repoIndex.ts';
import { startFakeRetrievalServer, type FakeRetrievalServer } from '../fake-provider/retrieval-server.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { tmpDir } from './helpers.ts';
import { cli } from './cliHarness.ts';

/**
 * Outside repository retrievers (issue 24, point 6): a run file of (case id, chunk id or file[:lines], score) and a
 * retrieval endpoint asked live are checked against the index build, then scored, diagnosed and gated like a
 * built-in. A run written from BM25's own ranking (lines shuffled: order comes from the scores and the shared tie
 * rule) reads back as exactly BM25's results.
 */
const r = new FixtureRepo();
const work = tmpDir('execretrieval-outside-');
after(() => r.cleanup());

// Ten near-identical report modules (many tied or close BM25 scores) and the one module that defines the total.
const fillers = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [
    `src/reports/report${i}.ts`,
    `/** Report: widget totals, widget totals per region. */\nexport function report${i}(totals: number[]) {\n  return totals.map((t) => t * 2); // widget totals\n}\n`,
  ]),
);
const rev = r.commit('fixture', {
  ...fillers,
  'src/core/total.ts': `/** Sums the widget line items of an order, tax included. */\nexport function widgetTotal(items: { price: number; qty: number }[], taxRate: number): number {\n  const net = items.reduce((s, it) => s + it.price * it.qty, 0);\n  return net * (1 + taxRate);\n}\n`,
  'assets/logo.bin': Buffer.from([0, 1, 2, 3, 0, 255]).toString('latin1'),
});

const mk = (id: string, query: string, cutoff: number): GoldCase => ({
  id,
  query,
  repositoryRevision: rev,
  evidence: [{ id: 'definition', anyOf: [{ file: 'src/core/total.ts', symbol: 'widgetTotal', roles: ['definition'] }] }],
  forbiddenPathPrefixes: [],
  cutoff,
  queryClass: 'behaviour_description',
  rationale: 'widgetTotal is where the total is computed.',
});
const cases = [mk('widget-total', 'how are widget totals computed', 3), mk('widget-total-tax', 'widgetTotal tax rate', 2)];

const index = join(work, 'index');
const casesFile = join(work, 'cases.jsonl');
const builtin = join(work, 'builtin');
let records: RetrievalRecord[];
let chunks: Chunk[];

const results = (dir: string): CaseResult[] => readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const evalWith = (out: string, ...args: string[]) => cli('eval', '--index', index, '--cases', casesFile, '--variants', 'plain', '--out', out, ...args);
/** A result as another retriever would have it: everything but the name must match. */
const asNamed = (rs: CaseResult[], name: string) => rs.map((x) => ({ ...x, retriever: name }));

/** The file's rows, in an order that is not the ranking's (reversed), so the import must order them itself. */
function trecOf(recs: RetrievalRecord[]): string {
  return recs.flatMap((rec) => rec.candidates_after_rerank.map((c) => `${rec.case_id} Q0 ${c.chunk_id} ${c.rank} ${c.score} bm25`)).reverse().join('\n') + '\n';
}

before(async () => {
  writeFileSync(casesFile, cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  assert.equal((await cli('index', '--repo', r.dir, '--rev', rev, '--out', index)).code, 0);
  const ev = await evalWith(builtin, '--retrievers', 'bm25', '--run-id', 'builtin');
  assert.equal(ev.code, 0, ev.err);
  records = readFileSync(join(builtin, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  chunks = readFileSync(join(index, 'chunks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const scores = records[0].candidates_after_rerank.map((c) => c.score);
  assert.ok(new Set(scores).size < scores.length, 'precondition: BM25 has exact ties to break');
});

test('a TREC run written from BM25, lines reversed, imported: the same results, records and gate verdict as BM25', async () => {
  const file = join(work, 'bm25.trec');
  writeFileSync(file, trecOf(records));
  const out = join(work, 'imported');
  const ev = await evalWith(out, '--retrievers', 'none', '--rankings', `mine=${file}`, '--run-id', 'imported');
  assert.equal(ev.code, 0, ev.err);
  assert.deepEqual(results(out), asNamed(results(builtin), 'mine'));
  const recs: RetrievalRecord[] = readFileSync(join(out, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(recs.map((x) => x.candidates_after_rerank), records.map((x) => x.candidates_after_rerank));
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  assert.equal(summary.outside.mine.kind, 'imported');
  assert.equal(summary.outside.mine.rows, records.reduce((n, x) => n + x.candidates_after_rerank.length, 0));
  const g = (dir: string, name: string) => cli('gate', '--run', dir, '--retriever', name, '--min-evidence', '1');
  const [a, b] = [await g(builtin, 'bm25'), await g(out, 'mine')];
  assert.equal(b.code, a.code);
  assert.equal(b.out.split('\n').slice(1).join('\n'), a.out.split('\n').slice(1).join('\n').replaceAll('bm25', 'mine'));
  // The same run beside the built-in in one evaluation, under the variants, and replayable like any record.
  const both = join(work, 'both');
  const ev2 = await cli('eval', '--index', index, '--cases', casesFile, '--variants', 'plain,ctx+rerank', '--retrievers', 'bm25', '--rankings', `mine=${file}`, '--out', both, '--run-id', 'both');
  assert.equal(ev2.code, 0, ev2.err);
  const names = new Set(results(both).map((x) => x.retriever));
  assert.deepEqual([...names].sort(), ['bm25', 'bm25+ctx+rerank', 'mine', 'mine+ctx+rerank']);
  const rp = await cli('eval', '--index', index, '--cases', casesFile, '--mode', 'recorded', '--recorded', out, '--out', join(work, 'replayed'));
  assert.equal(rp.code, 0, rp.err);
});

test('CSV with case_id/chunk_id columns and JSONL of file:lines and whole files resolve to the index\'s chunks', async () => {
  const target = chunks.find((c) => c.file === 'src/core/total.ts' && c.symbols.includes('widgetTotal'))!;
  const csv = join(work, 'run.csv');
  writeFileSync(csv, ['case_id,chunk_id,score', ...records.flatMap((rec) => rec.candidates_after_rerank.map((c) => `${rec.case_id},${c.chunk_id},${c.score}`))].join('\r\n'));
  const o1 = join(work, 'csv');
  assert.equal((await evalWith(o1, '--retrievers', 'none', '--rankings', `mine=${csv}`)).code, 0);
  assert.deepEqual(results(o1), asNamed(results(builtin), 'mine'));
  // A line inside widgetTotal, and a line range of it, name its chunk; a whole file is each of its chunks in order.
  const jsonl = join(work, 'run.jsonl');
  const line = target.start_line + 1;
  writeFileSync(jsonl, [
    { case_id: 'widget-total', corpus_id: `src/core/total.ts:${line}`, score: 9 },
    { case_id: 'widget-total', corpus_id: `src/core/total.ts:${line}-${line + 1}`, score: 8 }, // the same chunk again: merged
    { case_id: 'widget-total', corpus_id: 'src/reports/report3.ts', score: 7 },
    { case_id: 'widget-total-tax', corpus_id: 'src/reports/report1.ts', score: 3 },
  ].map((x) => JSON.stringify(x)).join('\n'));
  const o2 = join(work, 'jsonl');
  const ev = await evalWith(o2, '--retrievers', 'none', '--rankings', `lines=${jsonl}`);
  assert.equal(ev.code, 0, ev.err);
  const [first, second] = results(o2);
  assert.equal(first.passed, true);
  assert.deepEqual(first.final_context_ids, [target.chunk_id, ...chunks.filter((c) => c.file === 'src/reports/report3.ts').map((c) => c.chunk_id)].slice(0, 3));
  assert.equal(second.passed, false);
  assert.equal(second.diagnosis, 'not_a_candidate');
  assert.equal(JSON.parse(readFileSync(join(o2, 'summary.json'), 'utf8')).outside.lines.merged_rows, 1);
});

test('bad run files fail with one line naming the row, exit 2, nothing written', async () => {
  const good = trecOf(records).trim().split('\n');
  const [case0, , chunk0] = good[0].split(' ');
  const bad: [string, string[], RegExp][] = [
    ['unknown chunk', [...good, `${case0} Q0 src/core/nothere.ts:1-3 999 -1 x`], /1 ids not in index build \S+ \(bad\.trec:\d+: src\/core\/nothere\.ts:1-3: neither a chunk id nor a file of index build/],
    ['unindexed file', [...good, `${case0} Q0 assets/logo.bin 999 -1 x`], /assets\/logo\.bin: assets\/logo\.bin is not indexed \(exclude:/],
    ['lines past the end', [...good, `${case0} Q0 src/core/total.ts:400-410 999 -1 x`], /lines 400-410 of src\/core\/total\.ts are in no chunk/],
    ['unknown case', [...good, `nosuchcase Q0 ${chunk0} 1 1.5 x`], /1 unknown gold case ids \(bad\.trec:\d+: nosuchcase\)/],
    ['duplicate', [...good, good[0]], /1 duplicate \(case, id\) pairs/],
    ['NaN score', [...good.slice(1), `${case0} Q0 ${chunk0} 1 NaN x`], /1 scores that are not finite numbers \(bad\.trec:\d+: NaN\)/],
    ['missing case', good.filter((l) => !l.startsWith('widget-total-tax ')), /1 gold cases with no row \(widget-total-tax\)/],
  ];
  for (const [name, lines, want] of bad) {
    const file = join(work, 'bad.trec');
    writeFileSync(file, lines.join('\n') + '\n');
    const out = join(work, `bad-${name.replace(/ /g, '-')}`);
    const ev = await evalWith(out, '--retrievers', 'bm25', '--rankings', `mine=${file}`);
    assert.equal(ev.code, 2, `${name}: ${ev.err}`);
    const errLines = ev.err.split('\n').filter((l) => l.startsWith('error: '));
    assert.equal(errLines.length, 1, name);
    assert.match(errLines[0], /^error: --rankings mine=\S+bad\.trec: /, name);
    assert.match(errLines[0], want, name);
    assert.equal(existsSync(out), false, `${name}: nothing written`);
  }
  const named = await evalWith(join(work, 'bad-name'), '--rankings', `bm25=${join(work, 'bm25.trec')}`);
  assert.equal(named.code, 2);
  assert.match(named.err, /not a built-in retriever's/);
});

void test.describe('a retrieval endpoint as a live repository retriever', () => {
  let server: FakeRetrievalServer;
  let answers: Map<string, { corpus_id: string; score: number }[]>;
  const saved = process.env.EXECRETRIEVAL_RETRIEVAL_CACHE;
  before(async () => {
    process.env.EXECRETRIEVAL_RETRIEVAL_CACHE = join(work, 'retrieval-cache.sqlite');
    answers = new Map(records.map((rec) => [rec.case_id, rec.candidates_after_rerank.map((c) => ({ corpus_id: c.chunk_id, score: c.score })).reverse()]));
    server = await startFakeRetrievalServer((caseId) => answers.get(caseId) ?? []);
  });
  after(async () => {
    await server.close();
    if (saved === undefined) delete process.env.EXECRETRIEVAL_RETRIEVAL_CACHE;
    else process.env.EXECRETRIEVAL_RETRIEVAL_CACHE = saved;
  });

  test('answers in chunk ids score as BM25 did; a 503 is retried; a second run is answered from the cache', async () => {
    server.script({ status: 503, retryAfter: '0' });
    const out = join(work, 'endpoint');
    const ev = await evalWith(out, '--retrievers', `endpoint:${server.url}`, '--run-id', 'endpoint');
    assert.equal(ev.code, 0, ev.err);
    const name = results(out)[0].retriever;
    assert.match(name, /^endpoint:127\.0\.0\.1-\d+$/);
    assert.deepEqual(results(out), asNamed(results(builtin), name));
    const searches = server.requests.filter((q) => q.path === '/search');
    assert.equal(searches.length, 3, 'two cases, one retried');
    assert.deepEqual(searches.slice(1).map((q) => q.body).sort((a, b) => a.query_id.localeCompare(b.query_id)), cases.map((c) => ({ query_id: c.id, query: c.query, k: 100 })));
    const again = await evalWith(join(work, 'endpoint-again'), '--retrievers', `endpoint:${server.url}`);
    assert.equal(again.code, 0, again.err);
    assert.equal(server.requests.filter((q) => q.path === '/search').length, 3, 'nothing sent twice');
    const ledger = new EmbeddingLedger(join(out, 'ledger.sqlite'));
    const rows = ledger.batches('endpoint').filter((x) => x.config_id === name);
    ledger.close();
    assert.equal(rows.filter((x) => x.status === 'ok').length, 2, 'each search answered is a ledger row of the run');
  });

  test('an answer naming no chunk of the build: one line, exit 2, nothing written; a registry entry with index sends the chunks', async () => {
    answers.set('widget-total', [{ corpus_id: 'src/gone.ts:1-4', score: 1 }]);
    const reg = join(work, 'endpoints.json');
    writeFileSync(reg, JSON.stringify({ endpoints: [{ endpoint_id: 'mysearch', url: server.url, index: true, k: 20 }] }));
    const out = join(work, 'endpoint-bad');
    const ev = await evalWith(out, '--retrievers', 'endpoint:mysearch', '--endpoint-config', reg);
    assert.equal(ev.code, 2);
    assert.match(ev.err, /^error: endpoint:mysearch \(http:\/\/127\.0\.0\.1:\d+\): 1 ids not in index build \S+ \(widget-total results\[0\]: src\/gone\.ts:1-4: neither a chunk id nor a file/m);
    assert.equal(existsSync(join(out, 'results.jsonl')), false);
    const indexed = server.requests.filter((q) => q.path === '/index');
    assert.equal(indexed.length, 1);
    assert.equal(indexed[0].body.corpus.length, chunks.length);
    assert.deepEqual(Object.keys(indexed[0].body.corpus[0]).sort(), ['code', 'corpus_id', 'end_line', 'file', 'function_name', 'language', 'role', 'start_line', 'symbols']);
  });
});
