import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBenchmark, suiteOf } from '../../activities/scoring/benchmark.ts';
import { discoverConfigs } from '../../activities/scoring/configs.ts';
import { CORPUS, QUERIES } from './fixtures/tinyBenchmark.ts';

function withDir(fn: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'execretrieval-bench-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('loader rejects bad records with file, line, record and field, and keeps the rest', () =>
  withDir((dir) => {
    const corpus = [...CORPUS.map((c) => JSON.stringify(c)), JSON.stringify(CORPUS[0]), '{not json'];
    const check = {
      ...QUERIES[0],
      query_id: 'q_check',
      tests: [],
      test_program: 'def check(candidate):\n    assert candidate(1, 2) == 2\n',
      entry_point: 'larger',
    };
    const queries = [
      JSON.stringify(QUERIES[0]),
      JSON.stringify({ ...QUERIES[1], correct_corpus_ids: ['nope'] }),
      JSON.stringify({ ...QUERIES[2], tests: [] }),
      JSON.stringify(QUERIES[0]),
      JSON.stringify(check),
      JSON.stringify({ ...QUERIES[3], distractor_corpus_ids: ['q_0004_d1', 'missing_d2'] }),
    ];
    writeFileSync(join(dir, 'corpus.jsonl'), corpus.join('\n') + '\n');
    writeFileSync(join(dir, 'queries.jsonl'), queries.join('\n') + '\n');
    const b = loadBenchmark(dir);
    assert.deepEqual(b.queries.map((q) => q.query_id), ['q_0001', 'q_check']);
    assert.equal(b.corpus.length, CORPUS.length);
    const r = b.rejections.map((x) => `${x.file.endsWith('queries.jsonl') ? 'Q' : 'C'}:${x.line}:${x.record ?? ''}:${x.field}`);
    assert.deepEqual(r, [
      `C:${CORPUS.length + 1}:q_0001_canonical:corpus_id`,
      `C:${CORPUS.length + 2}::(record)`,
      'Q:2:q_0002:correct_corpus_ids[0]',
      'Q:3:q_0003:tests',
      'Q:4:q_0001:query_id',
      'Q:6:q_0004:distractor_corpus_ids[1]',
    ]);
    assert.deepEqual(suiteOf(b.queries[1]), { kind: 'check', program: check.test_program, entry_point: 'larger' });
    assert.deepEqual(suiteOf(b.queries[0]), { kind: 'asserts', tests: QUERIES[0].tests });
    assert.deepEqual(suiteOf({ ...b.queries[0], test_setup_code: 'import math' }), { kind: 'asserts', tests: QUERIES[0].tests, setup: 'import math' });
  }));

test('loader: missing files and an all-bad file are errors that say what to do', () =>
  withDir((dir) => {
    assert.throws(() => loadBenchmark(dir), /queries\.jsonl not found/);
    writeFileSync(join(dir, 'corpus.jsonl'), '');
    writeFileSync(join(dir, 'queries.jsonl'), '{}\n');
    assert.throws(() => loadBenchmark(dir), /no usable queries .* \(1 rejected\)/);
  }));

test('configs: dense directories with both matrices, BM25 added, --configs order kept and unknown ids reported', () =>
  withDir((dir) => {
    for (const [name, files] of [['b-model', ['queries.arrow', 'corpus.arrow']], ['a-model', ['queries.arrow', 'corpus.arrow']], ['half', ['queries.arrow']]] as const) {
      mkdirSync(join(dir, 'embeddings', name), { recursive: true });
      for (const f of files) writeFileSync(join(dir, 'embeddings', name, f), '');
    }
    assert.deepEqual(discoverConfigs(dir).configs.map((c) => c.config_id), ['a-model', 'b-model', 'bm25']);
    assert.deepEqual(discoverConfigs(dir, { bm25: false }).configs.map((c) => c.config_id), ['a-model', 'b-model']);
    const only = discoverConfigs(dir, { only: ['bm25', 'b-model', 'half', 'zzz'] });
    assert.deepEqual(only.configs.map((c) => c.config_id), ['bm25', 'b-model']);
    assert.deepEqual(only.missing, ['half', 'zzz']);
    // `run --configs bm25,x` used to pass `bm25,x,bm25`: a repeated id is scored once, at its first place.
    const repeated = discoverConfigs(dir, { only: ['bm25', 'a-model', 'zzz', 'bm25', 'zzz'] });
    assert.deepEqual(repeated.configs.map((c) => c.config_id), ['bm25', 'a-model']);
    assert.deepEqual(repeated.missing, ['zzz']);
  }));
