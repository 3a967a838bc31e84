/**
 * Where the score stage's rank phase goes as MBPP is copied (issue 39, the scale bench's one superlinear phase):
 * the two rankers the bench scores (BM25 over code, cosine over 64-dim vectors as local-static-64's) at 1x, 5x,
 * 20x, each split into its scoring pass (BM25's scoreAll / the blocked cosine) and the whole ranking (+ top-100 and
 * the exact ranks of each query's own five items: core/ranking/rank.ts summariseRow). Texts: MBPP's queries, and
 * each task's canonical five times (the real corpus is a canonical and up to four single-edit twins), copied with
 * the bench's copier; vectors: seeded random (the cost does not depend on their values). Every figure is against
 * the 1x leg measured in the same run: Q x C grows 25x at 5x and 400x at 20x.
 * Run: node --import tsx bench/rank-scale.ts [--legs 1,5,20]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildBm25Index } from '../core/bm25.ts';
import { cosineRows, type DenseMatrix } from '../core/ranking/cosine.ts';
import { rankBm25, rankDense, type RankQuery } from '../core/ranking/rank.ts';
import { writeCopiedMbpp } from '../test/pipeline/syntheticCopies.ts';

const { values } = parseArgs({ options: { legs: { type: 'string', default: '1,5,20' } } });
const legs = values.legs!.split(',').map(Number);
const DIM = 64;

/** Seeded uniform values (xorshift32): the same matrices every run. */
function randomMatrix(rows: number, seed: number): DenseMatrix {
  const data = new Float32Array(rows * DIM);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    data[i] = (x >>> 0) / 2 ** 32 - 0.5;
  }
  return { rows, dim: DIM, data };
}
const time = (fn: () => void) => {
  const t0 = performance.now();
  fn();
  return (performance.now() - t0) / 1000;
};

const tmp = mkdtempSync(join(tmpdir(), 'rank-scale-'));
const rows: { leg: number; q: number; c: number; bm25_scores: number; bm25_rank: number; cosine: number; dense_rank: number }[] = [];
try {
  for (const n of legs) {
    const { file } = await writeCopiedMbpp(join(tmp, `${n}x`), n);
    const tasks = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { task_id: string; query: string; canonical: string });
    const corpus = tasks.flatMap((t) => Array.from({ length: 5 }, (_, k) => ({ id: `${t.task_id}_${k}`, text: t.canonical })));
    const queries: RankQuery[] = tasks.map((t, i) => ({ query_id: t.task_id, text: t.query, correct: [5 * i], distractors: [1, 2, 3, 4].map((k) => 5 * i + k) }));
    const ids = corpus.map((d) => d.id);
    const Q = randomMatrix(queries.length, 1);
    const C = randomMatrix(corpus.length, 2);
    const index = buildBm25Index(corpus);
    const bm25Scores = time(() => queries.forEach((q) => index.scoreAll(q.text)));
    const bm25Rank = time(() => rankBm25(queries, corpus));
    const cosine = time(() => cosineRows(Q, C, () => undefined));
    const denseRank = time(() => rankDense(queries, Q, C, ids));
    rows.push({ leg: n, q: queries.length, c: corpus.length, bm25_scores: bm25Scores, bm25_rank: bm25Rank, cosine, dense_rank: denseRank });
    process.stderr.write(`${n}x done\n`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const b = rows[0];
const f = (v: number, base: number) => `${v.toFixed(2)} (${(v / base).toFixed(1)})`;
console.log('leg  queries  corpus  QxC_ratio  bm25_scoreAll_s  bm25_rank_s  cosine_s  dense_rank_s   (ratio to the first leg)');
for (const r of rows) {
  console.log(`${String(r.leg).padStart(3)}x ${String(r.q).padStart(8)} ${String(r.c).padStart(7)} ${((r.q * r.c) / (b.q * b.c)).toFixed(0).padStart(10)}  ${f(r.bm25_scores, b.bm25_scores).padStart(15)}  ${f(r.bm25_rank, b.bm25_rank).padStart(11)}  ${f(r.cosine, b.cosine).padStart(8)}  ${f(r.dense_rank, b.dense_rank).padStart(12)}`);
}
