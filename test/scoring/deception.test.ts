import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deceptionForQuery } from '../../core/deception/per_query.ts';

test('deception record: hand-worked query with four distractors', () => {
  const rec = deceptionForQuery({
    correct: [{ corpus_id: 'q_canonical', score: 0.8, rank: 3 }],
    distractors: [
      { corpus_id: 'q_d1', score: 0.9, rank: 1, bug_type: 'off_by_one' },
      { corpus_id: 'q_d2', score: 0.85, rank: 2, bug_type: 'wrong_operator' },
      { corpus_id: 'q_d3', score: 0.8, rank: 4, bug_type: 'off_by_one' }, // tie on score, ranked after by id
      { corpus_id: 'q_d4', score: 0.1, rank: 50, bug_type: null },
    ],
    top1_corpus_id: 'q_d1',
    top1_passed: false,
  });
  assert.equal(rec.deceived, 1);
  // d3 has the canonical's score, but d1 and d2 score strictly above it: the query is deceived, not a tie.
  assert.equal(rec.tied, 0);
  assert.equal(rec.rank1_miss, 1);
  assert.equal(rec.rank1_own_distractor, 1);
  assert.equal(rec.pref_pairs, 4);
  assert.equal(rec.pref_wins, 1.5); // beats d4, ties d3 (1/2), loses to d1 and d2
  assert.deepEqual(rec.by_bug_type, {
    off_by_one: { outscores: 1, ties: 1, total: 2 },
    wrong_operator: { outscores: 1, ties: 0, total: 1 },
    unknown: { outscores: 0, ties: 0, total: 1 },
  });
});

test('rank-1 miss by a snippet of another query is not an own-distractor miss; a pass is no miss', () => {
  const base = {
    correct: [{ corpus_id: 'q_canonical', score: 0.7, rank: 2 }],
    distractors: [{ corpus_id: 'q_d1', score: 0.6, rank: 3, bug_type: 'off_by_one' }],
  };
  const other = deceptionForQuery({ ...base, top1_corpus_id: 'z_canonical', top1_passed: false });
  assert.deepEqual([other.deceived, other.tied, other.rank1_miss, other.rank1_own_distractor, other.pref_wins], [0, 0, 1, 0, 1]);
  // A snippet of another query that passes the tests counts as passing (execution, not labels).
  const pass = deceptionForQuery({ ...base, top1_corpus_id: 'z_canonical', top1_passed: true });
  assert.deepEqual([pass.rank1_miss, pass.rank1_own_distractor], [0, 0]);
  const none = deceptionForQuery({ correct: base.correct, distractors: [], top1_corpus_id: 'q_canonical', top1_passed: true });
  assert.deepEqual([none.has_distractor, none.deceived, none.pref_pairs], [0, 0, 0]);
});

test('deception is by score: a twin with the same score ranked first by the hash tie-break is a tie, not a deception', () => {
  // The fault the strict rule exists for: BM25 gives a token-identical twin the canonical's score and the hash
  // of the ids happens to put the twin first. Ranked, the twin "outranks" the canonical; by score it does not.
  const rec = deceptionForQuery({
    correct: [{ corpus_id: 'q_canonical', score: 7.25, rank: 2 }],
    distractors: [
      { corpus_id: 'q_d1', score: 7.25, rank: 1, bug_type: 'wrong_operator' },
      { corpus_id: 'q_d2', score: 7.25, rank: 3, bug_type: 'off_by_one' },
      { corpus_id: 'q_d3', score: 3.0, rank: 9, bug_type: 'off_by_one' },
    ],
    top1_corpus_id: 'q_d1',
    top1_passed: false,
  });
  assert.deepEqual([rec.deceived, rec.tied], [0, 1]);
  assert.deepEqual(rec.by_bug_type, { wrong_operator: { outscores: 0, ties: 1, total: 1 }, off_by_one: { outscores: 0, ties: 1, total: 2 } });
  assert.equal(rec.pref_wins, 0.5 + 0.5 + 1);
  // The rank-1 analyses stay on the ranking people see: the twin is at rank 1 and fails.
  assert.deepEqual([rec.rank1_miss, rec.rank1_own_distractor], [1, 1]);
  // Several correct items: the best-scoring one stands for the canonical, whatever its rank.
  const two = deceptionForQuery({
    correct: [{ corpus_id: 'c1', score: 0.5, rank: 3 }, { corpus_id: 'c2', score: 0.7, rank: 2 }],
    distractors: [{ corpus_id: 'd', score: 0.6, rank: 1, bug_type: null }],
    top1_corpus_id: 'd',
    top1_passed: false,
  });
  assert.deepEqual([two.deceived, two.tied, two.pref_wins], [0, 0, 1]);
});
