import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeRegistries, selectConfigs } from '../../core/embeddings/registry.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { prepareText, invocationFingerprint } from '../../core/embeddings/prepare.ts';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';

test('the shipped registry is valid and carries the paper families with their documented invocations', () => {
  const { entries, errors } = loadRegistry({ root: process.cwd(), env: {} });
  assert.deepEqual(errors, []);
  const byId = new Map(entries.map((e) => [e.config.config_id, e.config]));
  // The paper: 23 dense configurations plus BM25 (k1 = 1.5, b = 0.75).
  assert.equal(entries.filter((e) => e.config.paper && e.config.provider !== 'bm25').length, 23);
  assert.deepEqual(byId.get('bm25')!.bm25, { k1: 1.5, b: 0.75 });
  const g1 = byId.get('gemini-embedding-001')!;
  assert.equal(g1.query.task_type, 'CODE_RETRIEVAL_QUERY');
  assert.equal(g1.document.task_type, 'RETRIEVAL_DOCUMENT');
  assert.equal(prepareText(byId.get('gemini-embedding-2')!.query, 'sum a list'), 'task: code retrieval | query: sum a list');
  assert.equal(prepareText(byId.get('e5-base-v2')!.query, 'x'), 'query: x');
  assert.equal(prepareText(byId.get('e5-base-v2')!.document, 'x'), 'passage: x');
  assert.equal(prepareText(byId.get('bge-base-en-v1.5')!.query, 'x'), 'Represent this sentence for searching relevant passages: x');
  assert.equal(prepareText(byId.get('bge-base-en-v1.5')!.document, 'x'), 'x');
  assert.match(prepareText(byId.get('qwen3-embedding-8b')!.query, 'x'), /^Instruct: .+\nQuery:x$/);
  for (const id of ['openai-text-embedding-3-small', 'mistral-embed', 'gte-base', 'all-minilm-l6-v2']) {
    assert.equal(prepareText(byId.get(id)!.query, 'x'), 'x', id);
  }
  // Families named by the issue are all present.
  const families = new Set(entries.map((e) => e.config.family));
  for (const f of ['gemini', 'mistral', 'openai', 'qwen3', 'bge', 'bge-m3', 'e5', 'gte', 'sentence-transformers', 'bm25']) assert.ok(families.has(f), f);
});

test('user files add and replace entries; bad entries are reported by file, index and field', () => {
  const root = mkdtempSync(join(tmpdir(), 'reg-'));
  mkdirSync(join(root, 'data'));
  cpSync('data/embedding-configs.json', join(root, 'data/embedding-configs.json'));
  mkdirSync(join(root, '.execretrieval'));
  writeFileSync(join(root, '.execretrieval/embedding-configs.json'), JSON.stringify({
    configs: [
      { config_id: 'my-tei-model', family: 'mine', provider: 'openai-compatible', model: 'org/m', dimensions: 8, base_url: 'http://127.0.0.1:1/v1' },
      { config_id: 'gte-base', family: 'gte', provider: 'openai-compatible', model: 'thenlper/gte-base', dimensions: 768, batch_size: 8 },
      { config_id: 'Bad Id', family: 'x', provider: 'openai', model: 'm', dimensions: 3 },
      { config_id: 'no-text', family: 'x', provider: 'openai', model: 'm', dimensions: 3, query: { template: 'prefix only' } },
    ],
  }));
  const extra = join(root, 'extra.json');
  writeFileSync(extra, '{ not json');
  const { entries, errors } = loadRegistry({ root, files: [extra], env: {} });
  const byId = new Map(entries.map((e) => [e.config.config_id, e]));
  assert.equal(byId.get('my-tei-model')!.config.dimensions, 8);
  assert.equal(byId.get('gte-base')!.config.batch_size, 8);
  assert.match(byId.get('gte-base')!.overrides!, /data\/embedding-configs\.json$/);
  assert.ok(byId.has('gemini-embedding-001'));
  assert.ok(errors.some((e) => /embedding-configs\.json configs\[2\] \(Bad Id\)\.config_id: lowercase/.test(e)), errors.join('\n'));
  assert.ok(errors.some((e) => /configs\[3\] \(no-text\)\.query\.template: must contain \{text\} exactly once/.test(e)), errors.join('\n'));
  assert.ok(errors.some((e) => /extra\.json: not valid JSON/.test(e)), errors.join('\n'));
  assert.throws(() => selectConfigs(entries, ['gte-base', 'nope']), /unknown configuration\(s\) nope; known: /);
  assert.deepEqual(selectConfigs(entries, ['bm25', 'gte-base']).map((c) => c.config_id), ['bm25', 'gte-base']);
});

test('text preparation is literal and the fingerprint follows what changes vectors', () => {
  const c = EmbeddingConfig.parse({ config_id: 'c', family: 'f', provider: 'gemini', model: 'm', dimensions: 4, query: { template: 'q: {text}!', task_type: 'A' } });
  assert.equal(prepareText(c.query, 'cost $& and $1'), 'q: cost $& and $1!');
  const d = EmbeddingConfig.parse({ ...c, query: { template: 'q: {text}!', task_type: 'B' } });
  assert.notEqual(invocationFingerprint(c, 'query'), invocationFingerprint(d, 'query'));
  assert.equal(invocationFingerprint(c, 'document'), invocationFingerprint(d, 'document'));
  assert.equal(mergeRegistries([{ file: 'f.json', content: [] }]).errors.length, 1);
});

test('the default run leaves out configurations marked default_run: false; naming one runs it', () => {
  const reg = loadRegistry({ root: process.cwd(), env: {} });
  const all = reg.entries.map((e) => e.config.config_id);
  const byDefault = selectConfigs(reg.entries, null).map((c) => c.config_id);
  // The code models added for issue 24 (hosted or needing a server of their own) run when named.
  const named = ['voyage-code-3', 'voyage-code-3-512-int8', 'jina-embeddings-v2-base-code', 'jina-code-embeddings-0.5b', 'jina-code-embeddings-1.5b', 'nomic-embed-code', 'codesage-large-v2'];
  assert.deepEqual(all.filter((id) => !byDefault.includes(id)), [...named, 'local-all-minilm-l6-v2-int8', 'local-all-mpnet-base-v2']);
  assert.ok(byDefault.includes('local-splade-tiny') && byDefault.includes('local-all-minilm-l6-v2') && byDefault.includes('bm25'));
  assert.deepEqual(selectConfigs(reg.entries, ['local-all-mpnet-base-v2', 'bm25']).map((c) => c.config_id), ['local-all-mpnet-base-v2', 'bm25']);
  // Not part of the invocation: flipping it (or the license) leaves cached vectors valid.
  const c = reg.entries.find((e) => e.config.config_id === 'local-all-mpnet-base-v2')!.config;
  assert.equal(invocationFingerprint({ ...c, default_run: true, license: 'x' }, 'document'), invocationFingerprint(c, 'document'));
});
