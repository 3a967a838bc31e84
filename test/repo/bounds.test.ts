import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { approxTokens, boundLines, DEFAULT_CHUNK_LIMITS, type ChunkLimits } from '../../core/repo/chunkBounds.ts';
import { fileCoverage } from '../../core/repo/coverage.ts';
import { chunkFile } from '../../activities/repo/indexBuild.ts';
import type { Chunk } from '../../schemas/repoIndex.ts';
import type { GoldCase } from '../../schemas/gold.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { evalOne, indexAt, tmpDir } from './helpers.ts';
import { buildIndex } from '../../activities/repo/indexBuild.ts';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';

/** Bounded chunks: no chunk over the configured lines or tokens, cut where the syntax allows, still named. */
const REV = 'b'.repeat(40);
const SMALL: ChunkLimits = { maxLines: 30, maxTokens: 400 };

function assertBounded(src: string, chunks: readonly Chunk[], limits: ChunkLimits) {
  for (const c of chunks) {
    assert.ok(c.end_line - c.start_line + 1 <= limits.maxLines, `${c.chunk_id}: ${c.end_line - c.start_line + 1} lines`);
    assert.ok(approxTokens(c.text) <= limits.maxTokens, `${c.chunk_id}: ${approxTokens(c.text)} tokens`);
    assert.equal(Buffer.from(src).subarray(c.start_byte, c.end_byte).toString(), c.text, `${c.chunk_id}: bytes address the text`);
  }
  assert.deepEqual(fileCoverage(src, chunks).uncovered, [], 'cutting leaves no holes');
}

test('approxTokens and boundLines against hand counts', () => {
  assert.equal(approxTokens('const x = f(a, b);'), 10); // const x = f ( a , b ) ;
  assert.equal(approxTokens('  \n\t'), 0);
  // 10 lines of 1 token; nodes start at depth 2 on lines 0..9 and at depth 1 on line 4: windows of ≤ 6 lines
  // end before line 4 (the shallowest start), then run on.
  const tokens = Array(10).fill(1);
  const depth = new Map([[0, 2], [1, 2], [2, 2], [3, 2], [4, 1], [5, 2], [6, 2], [7, 2], [8, 2], [9, 2]]);
  assert.deepEqual(boundLines(0, 9, tokens, depth, { maxLines: 6, maxTokens: 100 }), [[0, 3], [4, 9]]);
  // No node start anywhere: plain cuts at the limit.
  assert.deepEqual(boundLines(0, 9, tokens, new Map(), { maxLines: 4, maxTokens: 100 }), [[0, 3], [4, 7], [8, 9]]);
  // The token limit binds before the line limit: 3 tokens a line, at most 7 tokens → two lines a window.
  assert.deepEqual(boundLines(0, 4, Array(5).fill(3), new Map(), { maxLines: 50, maxTokens: 7 }), [[0, 1], [2, 3], [4, 4]]);
});

test('an over-long test block is cut between its test cases, every part a test chunk linked to the first', async () => {
  const cases = Array.from({ length: 20 }, (_, i) => `  // case ${i}\n  it('works ${i}', () => {\n    const v = compute(${i});\n    expect(v).toBe(${i * 2});\n  });\n`).join('\n');
  const src = `import { compute } from '../src/compute';\n\ndescribe('compute', () => {\n${cases}});\n`;
  const chunks = await chunkFile('test/compute.test.ts', src, REV, () => {}, SMALL);
  assertBounded(src, chunks, SMALL);
  const parts = chunks.filter((c) => c.text.includes('it('));
  assert.ok(parts.length >= 4, `${parts.length} parts`);
  for (const p of parts.slice(1)) {
    assert.equal(p.parent, parts[0].chunk_id);
    // Cut before a test case's comment: the comment stays with its case.
    assert.match(p.text, /^ {2}\/\/ case \d+\n {2}it\(/, p.chunk_id);
  }
  assert.ok(chunks.every((c) => c.role === 'test'));
});

test('an over-long function is cut at statements of its body; every part names the function', async () => {
  const body = Array.from({ length: 60 }, (_, i) => `  const v${i} = step(v${i - 1 < 0 ? 'input' : i - 1}, ${i});\n  if (v${i} > limit) {\n    log('over', v${i});\n  }`).join('\n');
  const src = `/** Runs every step. */\nexport function pipeline(input: number, limit: number) {\n${body}\n  return input;\n}\n`;
  const chunks = await chunkFile('src/pipeline.ts', src, REV, () => {}, SMALL);
  assertBounded(src, chunks, SMALL);
  assert.ok(chunks.length >= 8);
  assert.match(chunks[0].text, /^\/\*\* Runs every step\. \*\/\nexport function pipeline/);
  for (const c of chunks) {
    assert.deepEqual(c.symbols, ['pipeline']);
    assert.equal(c.role, 'definition');
  }
  for (const c of chunks.slice(1)) {
    assert.equal(c.parent, chunks[0].chunk_id);
    assert.match(c.text, /^ {2}(const v\d+ = |if |return )/, `${c.chunk_id} starts at a statement`);
  }
});

test('a minified line over the token limit is cut within the line; a long Markdown section at blank lines', async () => {
  const line = Array.from({ length: 3000 }, (_, i) => `a${i}`).join(',');
  const src = `export const table = [${line}];\n`;
  const chunks = await chunkFile('src/table.js', src, REV, () => {}, SMALL);
  assertBounded(src, chunks, SMALL);
  assert.ok(chunks.length >= 15);
  assert.equal(chunks.map((c) => c.text).join(''), src.trimEnd());
  assert.ok(chunks.every((c) => c.start_line === 1 && c.end_line === 1 && c.symbols[0] === 'table'));
  assert.equal(new Set(chunks.map((c) => c.chunk_id)).size, chunks.length, 'ids stay unique');

  const paras = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} line one.\nParagraph ${i} line two.\n`).join('\n');
  const md = `# Guide\n\n${paras}`;
  const mdChunks = await chunkFile('docs/guide.md', md, REV, () => {}, SMALL);
  assertBounded(md, mdChunks, SMALL);
  for (const c of mdChunks.slice(1)) assert.match(c.text, /^(Paragraph \d+ line one\.|$)/m, c.chunk_id);
  assert.ok(mdChunks.every((c) => c.symbols[0] === 'Guide'));
});

test('import-only regions are their own import chunk; code after them is not', async () => {
  const src = `// The service.\nimport { a } from './a';\nimport type { B } from './b';\nexport { c } from './c';\n\nconst registry = new Map();\nregistry.set('a', a);\n`;
  const chunks = await chunkFile('src/service.ts', src, REV);
  assert.deepEqual(chunks.map((c) => [c.role, c.start_line, c.end_line]), [['import', 1, 4], ['definition', 6, 6], ['call_site', 7, 7]]);
  const py = await chunkFile('pkg/m.py', 'from __future__ import annotations\nimport os\nfrom . import util\n\nprint(os.sep)\n', REV);
  assert.deepEqual(py.map((c) => c.role), ['import', 'call_site']);
});

const r = new FixtureRepo();
after(() => r.cleanup());

test('limits are recorded in the manifest and in the build id; the context cost at the cutoff is reported', async () => {
  const long = Array.from({ length: 120 }, (_, i) => `  total += ${i};`).join('\n');
  const rev = r.commit('fixture', { 'src/sum.ts': `export function sum() {\n  let total = 0;\n${long}\n  return total;\n}\n`, 'src/other.ts': 'export const other = 1;\n' });
  const dflt = await indexAt(r.dir, rev);
  assert.deepEqual(dflt.manifest.chunk_limits, { max_lines: DEFAULT_CHUNK_LIMITS.maxLines, max_tokens: DEFAULT_CHUNK_LIMITS.maxTokens });
  const small = await buildIndex({ repoDir: r.dir, revision: rev, policy: defaultPolicy(), outDir: tmpDir(), limits: SMALL });
  assert.deepEqual(small.manifest.chunk_limits, { max_lines: 30, max_tokens: 400 });
  assert.notEqual(small.manifest.index_build_id, dflt.manifest.index_build_id);
  assert.ok(small.chunks.filter((c) => c.file === 'src/sum.ts').length > dflt.chunks.filter((c) => c.file === 'src/sum.ts').length);

  const c: GoldCase = { id: 'sum', query: 'sum total', repositoryRevision: rev, evidence: [{ id: 'd', anyOf: [{ file: 'src/sum.ts', symbol: 'sum', roles: ['definition'] }] }], forbiddenPathPrefixes: [], cutoff: 3, queryClass: 'exact_identifier', rationale: 'r' };
  for (const index of [dflt, small]) {
    const { result } = await evalOne(r.dir, index, c);
    const byId = new Map(index.chunks.map((x) => [x.chunk_id, x]));
    const finals = result.final_context_ids.map((id) => byId.get(id)!);
    assert.ok(finals.length > 0);
    assert.equal(result.context_lines, finals.reduce((s, x) => s + x.end_line - x.start_line + 1, 0));
    assert.equal(result.context_tokens, finals.reduce((s, x) => s + approxTokens(x.text), 0));
  }
  // Smaller chunks: the same cutoff costs fewer lines.
  const costs = await Promise.all([dflt, small].map(async (index) => (await evalOne(r.dir, index, c)).result.context_lines!));
  assert.ok(costs[1] < costs[0], `context lines ${costs.join(' vs ')}`);
});
