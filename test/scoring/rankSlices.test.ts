/**
 * Scoring ranks a configuration in slices of queries with a turn of the event loop between them
 * (activities/scoring/rankConfig.ts): ranked in one call, a 20x MBPP configuration held the thread for minutes and
 * the activity's heartbeat timer never fired (docs/2026-12-05-scale-bench.md). The slices must give the rankings
 * of one call, ties included (the tie order is part of the fairness rule), for every kind of ranker.
 * Loop turns are counted with a setImmediate ticker: it advances only when the loop turns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rankConfig } from '../../activities/scoring/rankConfig.ts';
import type { LoadedBenchmark } from '../../activities/scoring/benchmark.ts';
import type { ConfigSource } from '../../activities/scoring/configs.ts';
import { writeMatrix } from '../../activities/embeddings/matrix.ts';
import { writeParquet } from '../../activities/storage/parquet.ts';
import { rankingRows } from '../../activities/scoring/rankingsParquet.ts';
import { bm25Ranker, rankBm25 } from '../../core/ranking/rank.ts';
import { tableFromArrays } from 'apache-arrow';
import { loopTurns } from '../support/loopTurns.ts';

const NQ = 120;
const NC = 300;
const WORDS = ['sum', 'list', 'max', 'min', 'sort', 'str', 'count', 'pair', 'even', 'odd'];

// A seeded generator (mulberry32): the fixture is the same on every run.
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Snippets drawn from a few words, every tenth a copy of another (exact score ties for BM25 and cosine alike). */
function fixture(dir: string): LoadedBenchmark {
  const r = rng(39);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const codes: string[] = [];
  for (let c = 0; c < NC; c++) codes.push(c % 10 === 9 ? codes[c - 5] : `def f${c % 7}(x):\n    return ${text(1 + (c % 4))}\n`);
  const corpus = codes.map((code, c) => ({ corpus_id: `c${String(c).padStart(4, '0')}`, code }));
  const queries = Array.from({ length: NQ }, (_, q) => ({
    query_id: `q${String(q).padStart(4, '0')}`,
    query: text(3),
    correct_corpus_ids: [corpus[(q * 2) % NC].corpus_id],
    distractor_corpus_ids: [corpus[(q * 2 + 1) % NC].corpus_id, corpus[(q * 2 + 9) % NC].corpus_id],
  }));
  return { dir, queries, corpus, corpusIndex: new Map(corpus.map((c, i) => [c.corpus_id, i])), rejections: [] } as unknown as LoadedBenchmark;
}

/** Dense and sparse-dot matrices (with repeated rows, so ties) and an imported run, as a scored run holds them. */
function sources(dir: string, bench: LoadedBenchmark): ConfigSource[] {
  const r = rng(7);
  const dim = 8;
  const qIds = bench.queries.map((q) => q.query_id);
  const cIds = bench.corpus.map((c) => c.corpus_id);
  const dense = (n: number) => {
    const data = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) for (let k = 0; k < dim; k++) data[i * dim + k] = i % 10 === 9 ? data[(i - 5) * dim + k] : Math.round(r() * 4) - 1;
    return data;
  };
  const sparse = (n: number) => {
    const data = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) for (let k = 0; k < dim; k += 2) [data[i * dim + k], data[i * dim + k + 1]] = [Math.floor(r() * 12), Math.round(r() * 3)];
    return data;
  };
  const out: ConfigSource[] = [{ config_id: 'bm25', kind: 'bm25', k1: 1.5, b: 0.75 }];
  for (const [id, similarity, make] of [['dense', 'cosine', dense], ['splade', 'sparse-dot', sparse]] as const) {
    writeMatrix(join(dir, `${id}-q`), { ids: qIds, dims: dim, data: make(qIds.length) }, { similarity });
    writeMatrix(join(dir, `${id}-c`), { ids: cIds, dims: dim, data: make(cIds.length) }, { similarity });
    out.push({ config_id: id, kind: 'dense', queries: join(dir, `${id}-q.arrow`), corpus: join(dir, `${id}-c.arrow`) } as ConfigSource);
  }
  // An imported run listing 20 items per query, with tied scores.
  const rows = { query_id: [] as string[], corpus_id: [] as string[], score: [] as number[] };
  for (const q of qIds) {
    for (let k = 0; k < 20; k++) {
      rows.query_id.push(q);
      rows.corpus_id.push(cIds[Math.floor(r() * NC)]);
      rows.score.push(Math.floor(r() * 5));
    }
  }
  // Duplicate (query, corpus) pairs are checkRun's business, before a run is stored: keep the first here.
  const seen = new Set<string>();
  const keep = rows.query_id.map((q, i) => !seen.has(`${q} ${rows.corpus_id[i]}`) && !!seen.add(`${q} ${rows.corpus_id[i]}`));
  const pick = <T>(xs: T[]) => xs.filter((_, i) => keep[i]);
  const file = join(dir, 'imported.parquet');
  writeParquet(file, tableFromArrays({ query_id: pick(rows.query_id), corpus_id: pick(rows.corpus_id), score: Float64Array.from(pick(rows.score)) }));
  out.push({ config_id: 'imported', kind: 'rankings', file } as ConfigSource);
  return out;
}

test('a configuration ranked in slices turns the event loop between them and gives the one-call rankings, exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'er-rank-slices-'));
  try {
    const bench = fixture(dir);
    for (const source of sources(dir, bench)) {
      const whole = await rankConfig(bench, source, 100, 'k39', Infinity);
      // 7 queries × 300 items per slice: 18 slices of the 120 queries (the last one short).
      const ticker = loopTurns();
      let sliced;
      try {
        sliced = await rankConfig(bench, source, 100, 'k39', 7 * NC + 5);
      } finally {
        ticker.stop();
      }
      assert.ok(ticker.turns() >= 18, `${source.config_id}: ${ticker.turns()} loop turns while ranking 18 slices`);
      assert.deepStrictEqual(sliced, whole, source.config_id);
      // What the rankings file stores: the same rows (its bytes also carry key-value metadata in an order
      // parquet-wasm does not keep, so they are compared as rows).
      const ids = bench.corpus.map((c) => c.corpus_id);
      assert.deepStrictEqual(rankingRows(sliced, ids), rankingRows(whole, ids));
      // The fixture has ties in every configuration's top 100, so the tie order was exercised.
      const tied = whole.some((r) => r.topScores.some((s, i) => i > 0 && s === r.topScores[i - 1]));
      assert.ok(tied, `${source.config_id}: no tie in any top list`);
    }
    // And the BM25 rankings are those of the core ranker in one call (the path before slicing).
    const direct = rankBm25(
      bench.queries.map((q) => ({ query_id: q.query_id, text: q.query, correct: q.correct_corpus_ids.map((id) => bench.corpusIndex.get(id)!), distractors: q.distractor_corpus_ids.map((id) => bench.corpusIndex.get(id)!) })),
      bench.corpus.map((c) => ({ id: c.corpus_id, text: c.code })),
      100,
      { tieKey: 'k39' },
    );
    assert.deepStrictEqual(await rankConfig(bench, { config_id: 'bm25', kind: 'bm25', k1: 1.5, b: 0.75 }, 100, 'k39', 3 * NC), direct);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a ranker refuses a query range outside its queries', () => {
  const r = bm25Ranker([{ query_id: 'q', text: 'a', correct: [0], distractors: [] }], [{ id: 'c', text: 'a' }]);
  assert.equal(r.rank(0, 1).length, 1);
  assert.equal(r.rank(1, 1).length, 0);
  assert.throws(() => r.rank(0, 2), /rankBm25: query range \[0, 2\) outside \[0, 1\)/);
  assert.throws(() => r.rank(1, 0), /query range/);
});
