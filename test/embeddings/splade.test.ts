import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { createLocalSpladeProvider } from '../../activities/embeddings/providers/localSplade.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { projectRoot } from '../../activities/paths.ts';
import { retrieverKind } from '../../core/embeddings/registry.ts';
import { packTopTerms, sparseDotRows, unpackTerms } from '../../core/ranking/sparse.ts';
import { rankSparse } from '../../core/ranking/rank.ts';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { writeMatrix } from '../../activities/embeddings/matrix.ts';
import { isHosted } from '../../activities/embeddings/batchBook.ts';
import { rankConfig } from '../../activities/scoring/rankConfig.ts';
import type { LoadedBenchmark } from '../../activities/scoring/benchmark.ts';

const penv = { env: {}, modelRoot: join(process.cwd(), '.execretrieval', 'models') };
const config = (id: string) => loadRegistry({ root: process.cwd(), env: {} }).entries.find((e) => e.config.config_id === id)!.config;
type Terms = Record<string, number>;

/** Sparse dot product of two term maps, computed directly (no index). */
const dotTerms = (a: Terms, b: Terms) => Object.entries(a).reduce((s, [t, w]) => s + w * (b[t] ?? 0), 0);
const termsOf = (row: Float32Array): Terms => Object.fromEntries(unpackTerms(row, 0, row.length).map((e) => [String(e.term), e.weight]));

test('packTopTerms keeps the strongest terms (ties by id), reports what it pruned, and pads with (0, 0)', () => {
  const w = new Float32Array(10);
  Object.assign(w, { 7: 0.5, 2: 2, 9: 0.5, 4: 1, 1: -3 });
  const { row, pruned } = packTopTerms(w, 3);
  assert.deepEqual([...row], [2, 2, 4, 1, 7, 0.5]);
  assert.equal(pruned, 1, 'term 9 (tied with 7 on weight, higher id) did not fit; a negative weight is not a term');
  const wide = packTopTerms(w, 6);
  assert.deepEqual([...wide.row], [2, 2, 4, 1, 7, 0.5, 9, 0.5, 0, 0, 0, 0]);
  assert.equal(wide.pruned, 0);
  assert.deepEqual(unpackTerms(wide.row, 0, 12).map((e) => e.term), [2, 4, 7, 9]);
});

test('sparse dot product through the inverted index equals the direct sum over shared terms, and ranks through the same summary as dense', () => {
  const rowsOf = (maps: Terms[], terms: number) => {
    const data = new Float32Array(maps.length * 2 * terms);
    maps.forEach((m, i) => {
      const dense = new Float32Array(40);
      for (const [t, v] of Object.entries(m)) dense[Number(t)] = v;
      data.set(packTopTerms(dense, terms).row, i * 2 * terms);
    });
    return { rows: maps.length, dim: 2 * terms, data };
  };
  const docs: Terms[] = [{ 3: 1, 5: 2 }, { 5: 0.5, 39: 4 }, {}, { 0: 1, 3: 0.25 }];
  const queries: Terms[] = [{ 5: 1, 3: 2 }, { 39: 1 }, { 11: 1 }];
  const got: number[][] = [];
  sparseDotRows(rowsOf(queries, 3), rowsOf(docs, 4), (q, s) => got.push([...s]));
  assert.deepEqual(got, queries.map((q) => docs.map((d) => dotTerms(q, d))));
  // Ranking: query 0 scores docs 0 (4), 3 (0.5), 1 (0.5), 2 (0); the tie between 1 and 3 breaks by id hash.
  const ids = ['a', 'b', 'c', 'd'];
  const [r] = rankSparse([{ query_id: 'q0', text: '', correct: [0], distractors: [1, 3] }], rowsOf(queries.slice(0, 1), 3), rowsOf(docs, 4), ids, 4);
  assert.equal(r.top[0], 0);
  assert.equal(r.canonical_rank, 1);
  assert.deepEqual(r.distractors.map((d) => d.score), [0.5, 0.5]);
  assert.equal(r.top[3], 2);
});

test('the registry entry is a learned-sparse configuration: sparse-dot, not normalised, even length; other combinations are refused', () => {
  const c = config('local-splade-tiny');
  assert.deepEqual([retrieverKind(c), c.similarity, c.normalize, c.dimensions, c.license], ['sparse', 'sparse-dot', false, 512, 'Apache-2.0']);
  // In-process: no request leaves the machine, so no ledger row and no bill.
  assert.equal(isHosted(c), false);
  const bad = (patch: object) => EmbeddingConfig.safeParse({ ...c, ...patch }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  assert.deepEqual(bad({ normalize: true }), ['normalize: sparse term weights are not normalised (set false)']);
  assert.deepEqual(bad({ similarity: 'cosine' }), ['similarity: local-splade scores with sparse-dot']);
  assert.deepEqual(bad({ dimensions: 511 }), ['dimensions: sparse rows are (term, weight) pairs: dimensions must be even']);
  assert.deepEqual(bad({ provider: 'local-onnx' }), ['similarity: sparse-dot needs a sparse provider (local-splade)']);
});

test('SPLADE-tiny term weights match an independent numpy forward pass (BERT + MLM head + max log(1+relu)) to 1e-5', async () => {
  const c = config('local-splade-tiny');
  const long = 'def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n'.repeat(12);
  const texts = ['Write a function to find the shared elements from the given two lists.', 'def similar_elements(t1, t2):\n    return tuple(set(t1) & set(t2))', 'He drove to the stadium.', long];
  const p = await createLocalSpladeProvider(c, penv);
  try {
    // One padded batch: pad positions must not contribute to the max.
    const { vectors } = await p.embed(texts, 'document');
    assert.equal((p as unknown as { pruned: number }).pruned, 0, 'no text here has more than 256 non-zero terms');
    env.localModelPath = penv.modelRoot;
    const tokenizer = await AutoTokenizer.from_pretrained('splade-tiny', { local_files_only: true });
    // [CLS] content [SEP], the long text cut as Hugging Face's tokenizers cut it (254 + 2).
    const rows = texts.map((t) => [101, ...tokenizer.encode(t, { add_special_tokens: false }).slice(0, 254), 102]);
    assert.equal(rows[3].length, 256);
    const r = spawnSync(join(projectRoot(), '.venv', 'bin', 'python'), [join(projectRoot(), 'test', 'embeddings', 'encoder_reference.py')], {
      input: JSON.stringify({ model_dir: join(penv.modelRoot, 'splade-tiny'), arch: 'bert', head: 'splade', rows }),
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    assert.equal(r.status, 0, r.stderr);
    const ref = (JSON.parse(r.stdout) as { terms: Terms[] }).terms;
    vectors.forEach((v, i) => {
      const ours = termsOf(v);
      let maxDiff = 0;
      for (const t of new Set([...Object.keys(ours), ...Object.keys(ref[i])])) maxDiff = Math.max(maxDiff, Math.abs((ours[t] ?? 0) - (ref[i][t] ?? 0)));
      assert.ok(maxDiff <= 1e-5, `text ${i}: max |Δ| = ${maxDiff}`);
      assert.ok(Object.keys(ref[i]).length >= 10, `text ${i}: ${Object.keys(ref[i]).length} terms`);
    });
    // A term expansion, not a bag of its own words: the code snippet activates terms it does not contain.
    const own = new Set(rows[1].map(String));
    assert.ok(Object.keys(ref[1]).some((t) => !own.has(t)));
    // The query and its own snippet share more weight than the query and an unrelated sentence.
    assert.ok(dotTerms(termsOf(vectors[0]), termsOf(vectors[1])) > dotTerms(termsOf(vectors[0]), termsOf(vectors[2])));
  } finally {
    await p.close?.();
  }
});

test('the scoring step ranks a run\'s matrices by what their metadata says: sparse-dot rows by sparse dot product, others by cosine', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sparse-rank-'));
  try {
    const bench = {
      dir,
      queries: [{ query_id: 'q1', query: 'x', correct_corpus_ids: ['c1'], distractor_corpus_ids: ['c2'] }],
      corpus: ['c1', 'c2', 'c3'].map((id) => ({ corpus_id: id, code: '' })),
      corpusIndex: new Map([['c1', 0], ['c2', 1], ['c3', 2]]),
      rejections: [],
    } as unknown as LoadedBenchmark;
    // Packed rows (2 terms): q = {5: 1, 9: 3}; c1 = {5: 4}, c2 = {9: 1, 5: 0.5}, c3 = {7: 9}.
    const q = Float32Array.from([9, 3, 5, 1]);
    const c = Float32Array.from([5, 4, 0, 0, 9, 1, 5, 0.5, 7, 9, 0, 0]);
    const source = (similarity: string) => {
      const base = join(dir, similarity);
      writeMatrix(`${base}-q`, { ids: ['q1'], dims: 4, data: q }, { similarity });
      writeMatrix(`${base}-c`, { ids: ['c1', 'c2', 'c3'], dims: 4, data: c }, { similarity });
      return { config_id: similarity, kind: 'dense' as const, queries: `${base}-q.arrow`, corpus: `${base}-c.arrow` };
    };
    const [sparse] = await rankConfig(bench, source('sparse-dot'));
    assert.deepEqual([sparse.correct[0].score, sparse.distractors[0].score], [4, 3.5]);
    assert.deepEqual([...sparse.top], [0, 1, 2]);
    // The same numbers read as dense vectors give cosines, not these scores.
    const [dense] = await rankConfig(bench, source('cosine'));
    assert.ok(dense.correct[0].score < 1 && dense.correct[0].score !== sparse.correct[0].score);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
