import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cosineRows, l2Normalize, type DenseMatrix } from '../../core/ranking/cosine.ts';
import { idOrderOf, topK } from '../../core/ranking/topk.ts';
import { rankBm25, rankDense, type RankQuery } from '../../core/ranking/rank.ts';
import { Xoshiro128 } from '../../core/stats/prng.ts';

function randomMatrix(rows: number, dim: number, seed: number): DenseMatrix {
  const g = new Xoshiro128(seed);
  return { rows, dim, data: Float32Array.from({ length: rows * dim }, () => g.nextU32() / 2 ** 32 - 0.5) };
}

test('blocked cosine equals the per-pair definition for any block sizes', () => {
  const Q = randomMatrix(7, 13, 1);
  const C = randomMatrix(29, 13, 2);
  const naive = (q: number, c: number) => {
    let dot = 0, nq = 0, nc = 0;
    for (let k = 0; k < 13; k++) {
      const a = Q.data[q * 13 + k];
      const b = C.data[c * 13 + k];
      dot += a * b;
      nq += a * a;
      nc += b * b;
    }
    return dot / Math.sqrt(nq * nc);
  };
  for (const [qb, cb] of [[1, 1], [3, 5], [32, 1024], [7, 29]]) {
    const rows: number[][] = [];
    cosineRows(Q, C, (q, row) => (rows[q] = Array.from(row)), { queryBlock: qb, corpusBlock: cb });
    for (let q = 0; q < 7; q++) for (let c = 0; c < 29; c++) assert.ok(Math.abs(rows[q][c] - naive(q, c)) < 1e-6, `q${q} c${c} blocks ${qb}/${cb}`);
  }
  assert.throws(() => cosineRows(Q, randomMatrix(2, 5, 3), () => {}), /dim/);
  const z = l2Normalize({ rows: 1, dim: 3, data: new Float32Array(3) });
  assert.deepEqual(Array.from(z.data), [0, 0, 0]);
});

test('top-k: score descending, ties in the hashed-id order, NaN last', () => {
  const ids = ['b', 'a', 'd', 'c', 'e'];
  const row = [0.5, 0.5, 0.9, NaN, 0.5];
  const order = idOrderOf(ids);
  // FNV-1a 32-bit of the one-character ids (computed by hand from the spec: (0x811c9dc5 ^ code) * 0x01000193 mod 2^32):
  // e = 0xe00c22e0, a = 0xe40c292c, b = 0xe70c2de5 (checked with a Python one-liner), so the ties order e, a, b.
  assert.deepEqual(Array.from(topK(row, order, 3)).map((i) => ids[i]), ['d', 'e', 'a']);
  assert.deepEqual(Array.from(topK(row, order, 10)).map((i) => ids[i]), ['d', 'e', 'a', 'b', 'c']);
  // The canonical does not win ties by its name: across many tied pairs it comes first about half the time.
  let first = 0;
  for (let q = 0; q < 400; q++) {
    const pair = [`q_${q}_canonical`, `q_${q}_d1`];
    if (topK([0.7, 0.7], idOrderOf(pair), 1)[0] === 0) first++;
  }
  assert.ok(first > 150 && first < 250, `canonical first in ${first}/400 ties`);
  // Against a full sort on random rows with many ties.
  const g = new Xoshiro128(4);
  const many = Array.from({ length: 500 }, (_, i) => `id${String(g.nextInt(100000)).padStart(6, '0')}_${i}`);
  const scores = many.map(() => g.nextInt(20) / 20);
  const order2 = idOrderOf(many);
  const sorted = many.map((_, i) => i).sort((x, y) => scores[y] - scores[x] || order2[x] - order2[y]);
  assert.deepEqual(Array.from(topK(scores, order2, 100)), sorted.slice(0, 100));
});

test('dense ranking of a hand-made geometry: top list, canonical rank, own scores', () => {
  // Corpus in 2-D: the query points along x; d1 is closer to x than the canonical.
  const corpusIds = ['q1_canonical', 'q1_d1', 'q1_d2', 'q2_canonical'];
  const C: DenseMatrix = { rows: 4, dim: 2, data: Float32Array.from([1, 0.5, 1, 0.1, 0, 1, -1, 0]) };
  const Q: DenseMatrix = { rows: 1, dim: 2, data: Float32Array.from([2, 0]) };
  const q: RankQuery = { query_id: 'q1', text: '', correct: [0], distractors: [1, 2] };
  const [r] = rankDense([q], Q, C, corpusIds, 3);
  assert.deepEqual(Array.from(r.top).map((i) => corpusIds[i]), ['q1_d1', 'q1_canonical', 'q1_d2']);
  assert.ok(Math.abs(r.topScores[1] - 1 / Math.sqrt(1.25)) < 1e-6);
  assert.equal(r.canonical_rank, 2);
  assert.deepEqual(r.distractors.map((d) => d.rank), [1, 3]);
  assert.throws(() => rankDense([q, q], Q, C, corpusIds), /query vectors/);
});

test('BM25 ranking ranks the lexically matching snippet first and keeps exact ranks', () => {
  const corpus = [
    { id: 'a', text: 'def add_numbers(x, y): return x + y' },
    { id: 'b', text: 'def reverse_string(s): return s[::-1]' },
    { id: 'c', text: 'def count_vowels(s): return sum(ch in "aeiou" for ch in s)' },
  ];
  const q: RankQuery = { query_id: 'q', text: 'reverse a string', correct: [1], distractors: [2] };
  const [r] = rankBm25([q], corpus);
  assert.equal(corpus[r.top[0]].id, 'b');
  assert.equal(r.canonical_rank, 1);
  assert.equal(r.top.length, 3);
});
