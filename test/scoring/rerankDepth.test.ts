/**
 * Below the rerank depth a reranked configuration keeps its first stage's order (issue 37: the items there were all
 * tied, so canonical_rank, deception and tie_rate moved even where the reranker changed nothing). A benchmark of 16
 * corpus items, reranked to depth 10 over BM25 through the fake Cohere API: items 11-16 must come out exactly in
 * BM25's order (ranked independently here), below every reranked item, with no ties.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerRerank } from '../../cli/commands/rerank.ts';
import { readImportedRows, rankConfig } from '../../activities/scoring/rankConfig.ts';
import { loadBenchmark } from '../../activities/scoring/benchmark.ts';
import { modelRoot } from '../../activities/paths.ts';
import type { ProviderEnv } from '../../activities/embeddings/types.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { writeTinyRun } from './fixtures/tinyBenchmark.ts';

describe('rerank keeps the first stage\'s order below its depth', () => {
  let dir: string;
  let runDir: string;
  let server: FakeEmbeddingServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'er-rerank-depth-'));
    runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    // Seven more snippets (16 in all), each sharing a word or two with some query, so BM25 orders them.
    const words = ['larger', 'vowels', 'add', 'sum', 'values', 'integers', 'string'];
    appendFileSync(join(runDir, 'benchmark', 'corpus.jsonl'), words.map((w, i) => JSON.stringify({
      corpus_id: `extra_${i}`, query_id: 'q_0001', function_name: `extra_${i}`, code: `def extra_${i}(x):\n    # ${w} ${words[(i + 2) % words.length]}\n    return x + ${i}\n`, is_canonical: false,
    })).join('\n') + '\n');
    server = await startFakeEmbeddingServer({ defaultDims: 6 });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('items 11-16 in BM25\'s order, below every reranked item', async () => {
    const penv: ProviderEnv = { env: { COHERE_API_KEY: 'c-test', EXECRETRIEVAL_EMBED_CACHE: join(dir, 'cache.sqlite') }, modelRoot: modelRoot(), baseUrls: server.baseUrls };
    const p = new Command();
    registerRerank(p, penv);
    const log = console.log;
    console.log = () => {};
    try {
      await p.exitOverride().parseAsync(['node', 'execretrieval', 'rerank', '--run', runDir, 'cohere-rerank-v3.5', '--over', 'bm25', '--depth', '10']);
    } finally {
      console.log = log;
    }
    const bench = loadBenchmark(join(runDir, 'benchmark'));
    assert.equal(bench.corpus.length, 16);
    const first = await rankConfig(bench, { config_id: 'bm25', kind: 'bm25', k1: 1.5, b: 0.75 });
    const rows = readImportedRows(join(runDir, 'embeddings', 'bm25+cohere-rerank-v3.5', 'imported-rankings.parquet'));
    bench.queries.forEach((q, qi) => {
      const mine = rows.filter((r) => r.query_id === q.query_id).sort((a, b) => b.score - a.score);
      assert.equal(mine.length, 16, `${q.query_id}: every item listed`);
      assert.equal(new Set(mine.map((r) => r.score)).size, 16, `${q.query_id}: no ties`);
      const bm25Order = Array.from(first[qi].top).map((c) => bench.corpus[c].corpus_id);
      assert.deepEqual(new Set(mine.slice(0, 10).map((r) => r.corpus_id)), new Set(bm25Order.slice(0, 10)), 'the top 10 is what was reranked');
      assert.deepEqual(mine.slice(10).map((r) => r.corpus_id), bm25Order.slice(10), `${q.query_id}: below the depth, BM25's order`);
    });
  });
});
