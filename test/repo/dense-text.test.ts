import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Chunk } from '../../schemas/repoIndex.ts';
import type { Embedder } from '../../activities/repo/embedder.ts';
import { buildIndex } from '../../activities/repo/indexBuild.ts';
import { DEFAULT_DENSE_TEXT, denseText, headOf } from '../../core/repo/denseText.ts';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { hashEmbedder } from './hashEmbedder.ts';
import { tmpDir } from './helpers.ts';
import { cli } from './cliHarness.ts';

/** What of a chunk the dense model reads: path, names, then the head of its text at a line boundary. */
const chunk = (text: string, symbols: string[] = []) => ({ file: 'src/a.ts', text, symbols }) as unknown as Chunk;

test('headOf keeps whole lines within the budget; a first line over it is cut; short text is untouched', () => {
  assert.equal(headOf('abc\ndef\nghi', 100), 'abc\ndef\nghi');
  assert.equal(headOf('abc\ndef\nghi', 8), 'abc\ndef');
  assert.equal(headOf('abc\ndef\nghi', 7), 'abc\ndef', 'the newline at the budget ends the head');
  assert.equal(headOf('abc\ndef\nghi', 6), 'abc');
  assert.equal(headOf('abcdefghij\nk', 4), 'abcd');
  assert.equal(headOf('abc   \n\ndef', 7), 'abc', 'trailing blanks dropped');
});

test('denseText: path, at most 8 names, the head; `full` is path and whole text', () => {
  const doc = '/** Adds two numbers. */\nexport function add(a: number, b: number) {\n  return a + b;\n}\n';
  assert.equal(denseText(chunk(doc, ['add']), { headChars: 50 }), 'src/a.ts\nadd\n/** Adds two numbers. */');
  assert.equal(denseText(chunk(doc, ['add']), { headChars: null }), `src/a.ts\n${doc}`);
  assert.equal(denseText(chunk('x', []), { headChars: 50 }), 'src/a.ts\nx', 'no names line without names');
  const many = Array.from({ length: 12 }, (_, i) => `C.m${i}`);
  assert.equal(denseText(chunk('x', many), { headChars: 50 }).split('\n')[1], many.slice(0, 8).join(' '));
  assert.equal(DEFAULT_DENSE_TEXT.headChars, null, 'the whole chunk unless a head is asked for (docs/dense-indexing.md)');
});

const r = new FixtureRepo();
after(() => r.cleanup());
const long = Array.from({ length: 30 }, (_, i) => `  const v${i} = compute${i}(input);`).join('\n');
const rev = r.commit('fixture', { 'src/a.ts': `/** Sums the parts. */\nexport function total(input: number) {\n${long}\n  return v0;\n}\n` });

test('the index embeds the dense text form it records; the form is part of the build id', async () => {
  const seen: string[] = [];
  const base = hashEmbedder(16);
  const spy: Embedder = { info: base.info, embed: (texts, side) => (seen.push(...texts), base.embed(texts, side)) };
  const head128 = { headChars: 128 };
  const head = await buildIndex({ repoDir: r.dir, revision: rev, policy: defaultPolicy(), outDir: tmpDir(), embedder: spy, denseText: head128 });
  assert.equal(head.manifest.dense_text, 'head:128');
  assert.deepEqual(seen, head.chunks.map((c) => denseText(c, head128)));
  const total = head.chunks.find((c) => c.symbols.includes('total'))!;
  assert.ok(total.text.length > 128 && denseText(total, head128).length < total.text.length, 'a long chunk is embedded by its head');
  assert.ok(denseText(total, head128).includes('export function total('), 'the signature is in the head');

  seen.length = 0;
  const full = await buildIndex({ repoDir: r.dir, revision: rev, policy: defaultPolicy(), outDir: tmpDir(), embedder: spy });
  assert.equal(full.manifest.dense_text, 'full', 'the default');
  assert.deepEqual(seen, full.chunks.map((c) => `src/a.ts\n${c.text}`));
  assert.notEqual(full.manifest.index_build_id, head.manifest.index_build_id);
  const lexical = await buildIndex({ repoDir: r.dir, revision: rev, policy: defaultPolicy(), outDir: tmpDir() });
  assert.equal(lexical.manifest.dense_text, undefined, 'no vectors, no form');
});

test('repo index --dense-head-chars: a bad value is a one-line usage error (exit 2)', async () => {
  const bad = await cli('index', '--repo', r.dir, '--rev', rev, '--out', tmpDir(), '--dense-head-chars', 'lots');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^error: --dense-head-chars: "lots" is not a whole number >= 1$/);
});
