import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkFile } from '../../activities/repo/indexBuild.ts';
import { retrieveForCase, retrieverSet, DEFAULT_PIPELINE } from '../../activities/repo/pipeline.ts';
import type { LoadedIndex } from '../../activities/repo/indexStore.ts';
import type { GoldCase } from '../../schemas/gold.ts';

const REV = 'a'.repeat(40);

test('TypeScript: definitions keep their doc comments; interfaces are declarations; glue is a call site', async () => {
  const src = `import { x } from './x';

/** Adds. */
export function add(a: number, b: number) {
  return a + b;
}

export interface Shape {
  area(): number;
}

export const LIMIT = 3, OTHER = 4;

console.log(add(1, 2));
`;
  const chunks = await chunkFile('src/math.ts', src, REV);
  const by = (s: string) => chunks.find((c) => c.symbols.includes(s))!;
  assert.equal(by('add').role, 'definition');
  assert.match(by('add').text, /^\/\*\* Adds\. \*\/\nexport function add/);
  assert.equal(by('add').start_line, 3);
  assert.equal(by('add').end_line, 6);
  assert.equal(by('Shape').role, 'declaration');
  assert.deepEqual(by('LIMIT').symbols, ['LIMIT', 'OTHER']);
  const glue = chunks.find((c) => c.text.startsWith('console.log'))!;
  assert.equal(glue.role, 'call_site');
  assert.ok(glue.references.includes('add'));
  // byte spans address the file's bytes
  for (const c of chunks) assert.equal(Buffer.from(src).subarray(c.start_byte, c.end_byte).toString(), c.text);
});

test('a long class is split into a head and one chunk per member (symbols Class.member)', async () => {
  const methods = Array.from({ length: 12 }, (_, i) => `  m${i}(x: number) {\n    const y = x + ${i};\n    const z = y * 2;\n    const w = z - 1;\n    const v = w / 3;\n    return v;\n  }\n`).join('\n');
  const src = `/** A big service. */\nexport class Service {\n  private n = 0;\n\n${methods}}\n`;
  const chunks = await chunkFile('src/service.ts', src, REV);
  const head = chunks.find((c) => c.symbols[0] === 'Service')!;
  assert.match(head.text, /^\/\*\* A big service\. \*\/\nexport class Service \{$/);
  const field = chunks.find((c) => c.symbols.includes('Service.n'))!;
  assert.equal(field.text, '  private n = 0;');
  const m3 = chunks.find((c) => c.symbols.includes('Service.m3'))!;
  assert.deepEqual(m3.symbols, ['m3', 'Service.m3']);
  assert.ok(m3.references.includes('Service'));
  assert.equal(chunks.filter((c) => c.symbols.some((s) => s.startsWith('Service.'))).length, 13);
  assert.ok(chunks[chunks.length - 1].text.trimEnd().endsWith('}'), 'the last method takes the closing brace');

  // Neighbour expansion: a hit on a method pulls in the chunk before it in its file (the field before m0).
  const index = { manifest: { revision: REV, index_build_id: 'b', embedder: null }, chunks, vectors: null } as unknown as LoadedIndex;
  const c: GoldCase = { id: 'n', query: 'm0', repositoryRevision: REV, evidence: [{ id: 'g', anyOf: [{ file: 'src/service.ts', symbol: 'Service', roles: ['definition'] }] }], forbiddenPathPrefixes: [], cutoff: 2, queryClass: 'exact_identifier', rationale: 'r' };
  const set = retrieverSet(index);
  const plain = await retrieveForCase(c, index, set, { ...DEFAULT_PIPELINE, retriever: 'symbol' });
  assert.deepEqual(plain.final_context_ids, [chunks.find((x) => x.symbols.includes('m0'))!.chunk_id]);
  const nbr = await retrieveForCase(c, index, set, { ...DEFAULT_PIPELINE, retriever: 'symbol', neighbours: true });
  assert.deepEqual(nbr.final_context_ids, [chunks.find((x) => x.symbols.includes('m0'))!.chunk_id, field.chunk_id]);
});

test('Python: functions, decorated classes, module assignments; tests recognised by path and by framework', async () => {
  const src = `import os

LIMIT = 3

# Joins paths.
def join(a, b):
    return os.path.join(a, b)

@dataclass
class Point:
    x: int
`;
  const chunks = await chunkFile('pkg/util.py', src, REV);
  const by = (s: string) => chunks.find((c) => c.symbols.includes(s))!;
  assert.equal(by('join').role, 'definition');
  assert.match(by('join').text, /^# Joins paths\.\ndef join/);
  assert.match(by('Point').text, /^@dataclass\nclass Point/);
  assert.equal(by('LIMIT').role, 'definition');
  const t1 = await chunkFile('tests/test_util.py', 'def test_join():\n    assert join("a", "b") == "a/b"\n', REV);
  assert.equal(t1[0].role, 'test');
  assert.ok(t1[0].references.includes('join'));
  const t2 = await chunkFile('pkg/checks.py', 'import pytest\n\ndef test_x():\n    assert True\n', REV);
  assert.ok(t2.every((c) => c.role === 'test'));
});

test('plain-text chunker: Markdown by heading, JSON as config', async () => {
  const md = '# Title\nintro\n\n## Usage\nRun `repo index` then `repo eval`.\n';
  const chunks = await chunkFile('docs/guide.md', md, REV);
  assert.deepEqual(chunks.map((c) => [c.symbols[0], c.start_line, c.end_line, c.role]), [['Title', 1, 3, 'docs'], ['Usage', 4, 5, 'docs']]);
  const json = await chunkFile('config/index.json', '{"a": 1}\n', REV);
  assert.equal(json[0].role, 'config');
  assert.equal(json[0].language, 'json');
});

test('JavaScript: a CommonJS require is an import, not a definition; module.exports = function f and nested functions are named', async () => {
  const src = `'use strict';
const stringify = require('./stringify');
const { parse } = require('./parse').default;

/** Finds callers. */
module.exports = function getCallers(depth) {
  function frameName(f) {
    return f.getFunctionName();
  }
  return new Error().stack.split('\\n').slice(depth).map(frameName);
};

exports.format = function (v) {
  return stringify(v);
};

function outer(a) {
  function inner(b) { return b + 1; }
  return inner(a);
}
`;
  const chunks = await chunkFile('lib/callers.js', src, REV);
  const requires = chunks.find((c) => c.text.includes("require('./stringify')"))!;
  assert.equal(requires.role, 'import');
  assert.deepEqual(requires.symbols, []);
  assert.ok(!chunks.some((c) => c.symbols.includes('stringify') || c.symbols.includes('parse')), 'no chunk defines an imported name');
  assert.deepEqual(chunks.find((c) => c.symbols.includes('getCallers'))?.symbols, ['getCallers', 'frameName']);
  assert.equal(chunks.find((c) => c.symbols.includes('getCallers'))?.role, 'definition');
  assert.equal(chunks.find((c) => c.symbols.includes('format'))?.start_line, 13);
  assert.deepEqual(chunks.find((c) => c.symbols.includes('outer'))?.symbols, ['outer', 'inner']);
});
