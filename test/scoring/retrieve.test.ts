import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { scoreRun } from '../../activities/scoring/scoreRun.ts';
import { readScoredConfigs } from '../../activities/scoring/scoringFiles.ts';
import { readRankingsParquet } from '../../activities/scoring/rankingsParquet.ts';
import { StopError } from '../../activities/faults.ts';
import { registerRetrieve } from '../../cli/commands/retrieve.ts';
import { startFakeRetrievalServer, type FakeRetrievalServer } from '../fake-provider/retrieval-server.ts';
import { assertClose } from '../support/assertClose.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { writeTinyRun, CORPUS, QUERIES } from './fixtures/tinyBenchmark.ts';

describe('a retrieval endpoint is a configuration: searched per query, retried, cached, scored like the configuration whose answers it serves', () => {
  let dir: string;
  let runDir: string;
  let oracle: Oracle;
  let server: FakeRetrievalServer;
  let env: Record<string, string>;
  let poison = false;
  const cli = async (...args: string[]) => {
    const p = new Command();
    registerRetrieve(p, env);
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
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-retrieve-'));
    runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    oracle = await openOracle({ cachePath: join(dir, 'exec-cache.sqlite'), concurrency: 2 });
    await scoreRun({ runDir, oracle, configs: ['toy'], bm25: false, replicates: 200, seed: 2 });
    // The service answers toy's stored rankings (raw scores), looked up by the query text it is sent.
    const toy = readRankingsParquet(join(runDir, 'rankings', 'toy.parquet'));
    server = await startFakeRetrievalServer((_id, query) => {
      const q = QUERIES.find((x) => x.query === query)!;
      const hits = toy.filter((r) => r.query_id === q.query_id).map((r) => ({ corpus_id: r.corpus_id, score: r.score }));
      return poison ? [...hits, { corpus_id: 'not_in_corpus', score: -5 }] : hits;
    });
    env = { EXECRETRIEVAL_RETRIEVAL_CACHE: join(dir, 'retrieval-cache.sqlite') };
  });
  after(async () => {
    await oracle?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('index call (a 503 on it retried after its Retry-After), one search per query, answers scored exactly as the source configuration', async () => {
    server.script({ status: 503, retryAfter: '0' });
    const out = await cli('retrieve', '--run', runDir, server.url, '--name', 'svc', '--index');
    assert.match(out, /retrieved the top 100 of 4 queries .* as configuration svc: 4 searches sent, 0 cached, corpus indexed/);
    const paths = server.requests.map((r) => r.path);
    assert.deepEqual(paths, ['/index', '/index', '/search', '/search', '/search', '/search'], 'index first, sent again after the 503');
    assert.deepEqual(server.requests[0].body.corpus.map((c: { corpus_id: string }) => c.corpus_id), CORPUS.map((c) => c.corpus_id));
    assert.match(server.requests[0].body.corpus_sha256, /^[0-9a-f]{64}$/);
    const searches = server.requests.filter((r) => r.path === '/search');
    assert.deepEqual(Object.keys(searches[0].body).sort(), ['k', 'query', 'query_id']);
    assert.equal(searches[0].body.k, 100);
    const ledger = new EmbeddingLedger(join(runDir, 'ledger.sqlite'));
    assert.deepEqual(ledger.batches('tiny').filter((x) => x.config_id === 'endpoint:url').map((x) => x.status), ['ok', 'ok', 'ok', 'ok'], 'each search a ledger row');
    ledger.close();
    const r = await scoreRun({ runDir, oracle, configs: ['toy', 'svc'], bm25: false, replicates: 200, seed: 2 });
    assert.deepEqual(r.manifest.failed_configs, []);
    const [toy, svc] = readScoredConfigs(runDir, ['toy', 'svc']);
    assertClose(svc.queries, toy.queries, 'svc vs toy');
  });

  test('a rerun under another name sends nothing (cached by URL, k and query text); an answer with an unknown corpus id, or no URL, exits 2 with nothing written', async () => {
    const n = server.requests.length;
    assert.match(await cli('retrieve', '--run', runDir, server.url, '--name', 'svc-again'), /0 searches sent, 4 cached/);
    assert.equal(server.requests.length, n);
    poison = true;
    await assert.rejects(cli('retrieve', '--run', runDir, server.url, '--name', 'svc-bad', '--k', '50'), (e: StopError) => e.exitCode === 2 && /4 unknown corpus ids \(q_0001 results\[9\]: not_in_corpus/.test(e.message));
    poison = false;
    assert.ok(!existsSync(join(runDir, 'embeddings', 'svc-bad')));
    const reg = join(dir, 'endpoints.json');
    writeFileSync(reg, JSON.stringify({ endpoints: [{ endpoint_id: 'hybrid', url_env: 'HYBRID_URL', api_key_env: 'HYBRID_KEY' }] }));
    await assert.rejects(cli('retrieve', '--run', runDir, 'hybrid', '--config-file', reg), (e: StopError) => e.exitCode === 2 && /hybrid: no URL: set HYBRID_URL/.test(e.message));
    env = { ...env, HYBRID_URL: server.url, HYBRID_KEY: 'h-secret' };
    await cli('retrieve', '--run', runDir, 'hybrid', '--config-file', reg, '--k', '5');
    const last = server.requests.at(-1)!;
    assert.equal(last.headers.authorization, 'Bearer h-secret');
    assert.equal(last.body.k, 5);
  });
});
