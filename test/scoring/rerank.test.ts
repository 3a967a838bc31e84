import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { scoreRun } from '../../activities/scoring/scoreRun.ts';
import { readScoredConfigs } from '../../activities/scoring/scoringFiles.ts';
import { readRankingsParquet } from '../../activities/scoring/rankingsParquet.ts';
import { readImportedRows as readImported } from '../../activities/scoring/rankConfig.ts';
import { StopError } from '../../activities/faults.ts';
import type { ProviderEnv } from '../../activities/embeddings/types.ts';
import { modelRoot } from '../../activities/paths.ts';
import { registerRerank } from '../../cli/commands/rerank.ts';
import { mcnemarExact } from '../../core/stats/mcnemar.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { startFakeEmbeddingServer, fakeRerankScore, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { writeTinyRun, CORPUS, QUERIES } from './fixtures/tinyBenchmark.ts';

const HOSTED = [
  { id: 'cohere-rerank-v3.5', api: 'cohere', model: 'rerank-v3.5', path: '/cohere/v2/rerank', key: 'Bearer c-test' },
  { id: 'voyage-rerank-2.5', api: 'voyage', model: 'rerank-2.5', path: '/voyage/v1/rerank', key: 'Bearer v-test' },
  { id: 'jina-reranker-v2-base-multilingual', api: 'jina', model: 'jina-reranker-v2-base-multilingual', path: '/jina/v1/rerank', key: 'Bearer j-test' },
] as const;

describe('rerankers as a second stage over BM25, through the fake rerank APIs (Cohere SDK, Voyage and Jina over fetch)', () => {
  let dir: string;
  let runDir: string;
  let oracle: Oracle;
  let server: FakeEmbeddingServer;
  let penv: ProviderEnv;
  const cli = async (...args: string[]) => {
    const p = new Command();
    registerRerank(p, penv);
    const out: string[] = [];
    const log = console.log;
    const err = console.error;
    console.log = (...a: unknown[]) => out.push(a.join(' '));
    console.error = () => {};
    try {
      await p.exitOverride().parseAsync(['node', 'execretrieval', ...args]);
    } finally {
      console.log = log;
      console.error = err;
    }
    return out.join('\n');
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-rerank-'));
    runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    server = await startFakeEmbeddingServer({ defaultDims: 6 });
    penv = {
      env: { COHERE_API_KEY: 'c-test', VOYAGE_API_KEY: 'v-test', JINA_API_KEY: 'j-test', EXECRETRIEVAL_EMBED_CACHE: join(dir, 'embed-cache.sqlite') },
      modelRoot: modelRoot(),
      baseUrls: server.baseUrls,
    };
    oracle = await openOracle({ cachePath: join(dir, 'exec-cache.sqlite'), concurrency: 2 });
  });
  after(async () => {
    await oracle?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('each hosted reranker gets its documented request; the reranked order is the provider\'s; report pairs it with BM25', async () => {
    // A rate limit on the first Voyage request is waited out (Retry-After: 0) and the request sent again.
    server.script('voyage', { status: 429, retryAfter: '0' });
    for (const h of HOSTED) {
      const start = server.requests.length;
      const out = await cli('rerank', '--run', runDir, h.id, '--over', 'bm25', '--depth', '10');
      assert.match(out, new RegExp(`as configuration bm25\\+${h.id}: 4 queries, 36 pairs \\(0 cached\\)`));
      const reqs = server.requests.slice(start);
      assert.equal(reqs.length, h.api === 'voyage' ? 5 : 4, `${h.id}: one request per query`);
      const last = reqs.at(-1)!;
      assert.equal(last.path, h.path);
      assert.equal(last.headers.authorization, h.key);
      const body = last.body as Record<string, unknown>;
      assert.equal((body.documents as string[]).length, 9);
      const q = QUERIES.find((x) => x.query === body.query);
      assert.ok(q, `${h.id}: the query text is sent as is`);
      const { documents: _docs, query: _q, ...rest } = body;
      const expected = {
        cohere: { model: h.model, top_n: 9, max_tokens_per_doc: 4096 },
        voyage: { model: h.model, top_k: 9, truncation: true },
        jina: { model: h.model, top_n: 9, return_documents: false },
      }[h.api];
      assert.deepEqual(rest, expected, h.id);
    }
    const ids = ['bm25', ...HOSTED.map((h) => `bm25+${h.id}`)];
    const r = await scoreRun({ runDir, oracle, configs: ids, replicates: 300, seed: 5 });
    assert.deepEqual(r.manifest.configs, ids);
    // Independent expectation: BM25's stored top list re-sorted by the fake's score for each pair (float32, as stored).
    const bm25 = readRankingsParquet(join(runDir, 'rankings', 'bm25.parquet'));
    const code = new Map(CORPUS.map((c) => [c.corpus_id, c.code]));
    const scored = new Map(readScoredConfigs(runDir, ids).map((c) => [c.config_id, c.queries]));
    for (const h of HOSTED) {
      for (const q of scored.get(`bm25+${h.id}`)!) {
        const text = QUERIES.find((x) => x.query_id === q.query_id)!.query;
        const expected = bm25.filter((x) => x.query_id === q.query_id).map((x) => ({ id: x.corpus_id, s: Math.fround(fakeRerankScore(h.model, text, code.get(x.corpus_id)!)) })).sort((a, b) => b.s - a.s);
        assert.deepEqual(q.hits.map((x) => x.corpus_id), expected.map((x) => x.id), `${h.id} ${q.query_id}`);
        assert.deepEqual(q.hits.map((x) => x.score), expected.map((x) => x.s));
      }
    }
    // Report: each reranker beside BM25, its numbers recomputed from the per-query verdicts.
    const summary = JSON.parse(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'));
    assert.equal(summary.rerank.length, 3);
    const first = scored.get('bm25')!.map((q) => q.metrics['exec@1']);
    for (const row of summary.rerank) {
      const mine = scored.get(row.config_id)!.map((q) => q.metrics['exec@1']);
      const b = mine.filter((x, i) => x === 1 && first[i] === 0).length;
      const c = mine.filter((x, i) => x === 0 && first[i] === 1).length;
      assert.equal(row.over, 'bm25');
      assert.deepEqual([row.b, row.c, row.p_value], [b, c, mcnemarExact(b, c).p_value]);
      assert.equal(row.first_exec_at_1.estimate, summary.estimates.bm25['exec@1'].estimate);
      assert.equal(row.reranked_exec_at_1.estimate, summary.estimates[row.config_id]['exec@1'].estimate);
      assert.ok(Math.abs(row.gain.estimate - (mine.reduce((a, x) => a + x, 0) - first.reduce((a, x) => a + x, 0)) / 4) < 1e-12);
    }
    assert.match(readFileSync(join(runDir, 'report', 'report.md'), 'utf8'), /## Rerankers beside their first stage/);
    // Every hosted request is a ledger row: Cohere's cost from its search units, Voyage's from its tokens, the 429 a failed row.
    const ledger = new EmbeddingLedger(join(runDir, 'ledger.sqlite'));
    const rows = ledger.batches('tiny');
    ledger.close();
    const of = (id: string) => rows.filter((x) => x.config_id === `rerank:${id}`);
    assert.deepEqual(of('cohere-rerank-v3.5').map((x) => [x.status, x.cost_usd]), Array(4).fill(['ok', 0.002]));
    assert.deepEqual(of('voyage-rerank-2.5').map((x) => x.status), ['error', 'ok', 'ok', 'ok', 'ok']);
    for (const x of of('voyage-rerank-2.5').slice(1)) {
      assert.ok(Math.abs(x.cost_usd! - (x.tokens_reported! * 0.05) / 1e6) < 1e-15);
      assert.ok(x.cost_usd! <= x.cost_usd_max, 'the bound recorded before sending covers the bill');
    }
    assert.ok(of('cohere-rerank-v3.5').every((x) => x.cost_usd! <= x.cost_usd_max));
    assert.match(readFileSync(join(runDir, 'report', 'report.html'), 'utf8'), /id="rerank-table"/);
  });

  test('a rerun is served from the cache (nothing sent); bad names, a missing key and a short depth exit 2 with nothing written', async () => {
    const start = server.requests.length;
    const out = await cli('rerank', '--run', runDir, 'cohere-rerank-v3.5', '--over', 'bm25', '--depth', '10', '--name', 'again');
    assert.match(out, /36 pairs \(36 cached\), 0 requests/);
    assert.equal(server.requests.length, start);
    assert.deepEqual(readRankingsOf('again'), readRankingsOf('bm25+cohere-rerank-v3.5'));
    const fails: [string[], RegExp][] = [
      [['nope', '--over', 'bm25'], /unknown reranker "nope"/],
      [['cohere-rerank-v3.5', '--over', 'missing', '--name', 'x1'], /--over missing: no such configuration/],
      [['cohere-rerank-v3.5', '--over', 'bm25', '--depth', '5', '--name', 'x2'], /rerank at least the top 10/],
    ];
    for (const [args, re] of fails) await assert.rejects(cli('rerank', '--run', runDir, ...args), (e: StopError) => e.exitCode === 2 && re.test(e.message));
    const saved = penv;
    // A fresh cache: with every pair cached no scorer is created and no key is needed.
    penv = { ...penv, env: { EXECRETRIEVAL_EMBED_CACHE: join(dir, 'empty-cache.sqlite') } };
    try {
      await assert.rejects(cli('rerank', '--run', runDir, 'jina-reranker-v2-base-multilingual', '--over', 'toy', '--depth', '10', '--name', 'x3'), (e: StopError) => e.exitCode === 2 && /no API key: set JINA_API_KEY/.test(e.message));
    } finally {
      penv = saved;
    }
    for (const n of ['x1', 'x2', 'x3']) assert.ok(!existsSync(join(runDir, 'embeddings', n)), n);
  });

  test('the local scorer (a local embedding model as a (query, snippet) scorer) reranks offline: cosines of the model\'s own vectors', async () => {
    await cli('rerank', '--run', runDir, 'local-minilm-scorer', '--over', 'bm25', '--depth', '10');
    const rows = readRankingsOf('bm25+local-minilm-scorer');
    assert.equal(rows.length, 36);
    assert.ok(rows.every((r) => r.score >= -1 && r.score <= 1), 'cosines');
    // The model puts `larger`'s own canonical above `count_vowels` for "Return the larger of two numbers".
    const q1 = rows.filter((r) => r.query_id === 'q_0001');
    const s = (id: string) => q1.find((r) => r.corpus_id === id)!.score;
    assert.ok(s('q_0001_canonical') > s('q_0002_canonical'));
  });

  function readRankingsOf(name: string) {
    return readImported(join(runDir, 'embeddings', name, 'imported-rankings.parquet'));
  }
});
