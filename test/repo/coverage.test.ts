import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { projectRoot } from '../../activities/paths.ts';
import { chunkFile } from '../../activities/repo/indexBuild.ts';
import { GitRepo } from '../../activities/repo/git.ts';
import { fileCoverage, lineRanges } from '../../core/repo/coverage.ts';
import { approxTokens, DEFAULT_CHUNK_LIMITS } from '../../core/repo/chunkBounds.ts';
import { loadGold } from '../../activities/repo/goldFiles.ts';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';
import type { Chunk } from '../../schemas/repoIndex.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { indexAt } from './helpers.ts';
import { PARSE_FILES, RETRY_FILES, SESSION_FILES } from './worked-fixtures.ts';
import { join } from 'node:path';

/**
 * Index coverage: every non-blank line of an included file is in some chunk (a line in none can never be
 * retrieved), and class members are their own symbols, with their doc comments, at every class size.
 */
const REV = 'a'.repeat(40);

const methods = (n: number, indent: string, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i).replace(/^/gm, indent)).join('\n');

/** A TypeScript class over the split threshold with every kind of member the issue found unindexed. */
const TS_CLASS = `import { Base } from './base';

/** The request context. */
export class Context<E> extends Base {
  /** The response status. */
  status = 200;
  // a comment after a blank line, still before the next member

  private headers: Record<string, string> = {}; // a trailing comment
  #finalized = false;
  /** Reads or sets a header. */
  header(name: string): string;
  header(name: string, value: string): void;
  header(name: string, value?: string): string | void {
    if (value === undefined) return this.headers[name];
    this.headers[name] = value;
  }
  get res(): number { return this.status; }
  set res(v: number) { this.status = v; }
  static { register(); }
  [key: string]: unknown;
${methods(20, '  ', (i) => `step${i}(x: number) {\n  return x + ${i};\n}\n`)}
  /** @deprecated use header() */
  setHeader = (n: string, v: string) => this.header(n, v);
  #dispatch(): void {
    this.#finalized = true;
  }
  /** Fields after the last method are not the method's. */
  error?: Error;
}

export const after = 1;
`;

const JS_CLASS = `export class Router {
  routes = [];
  static #count = 0;
${methods(30, '  ', (i) => `on${i}(path) {\n  this.routes.push([path, ${i}]);\n}\n`)}
  /** The last field. */
  fallback = null;
}
`;

const PY_CLASS = `import os


class Store(Base):
    """A key-value store."""

    limit: int = 10
    # the default name
    name = "store"

    @property
    def size(self):
        return len(self.items)

${methods(30, '    ', (i) => `def get${i}(self, key):\n    return self.items.get(key, ${i})\n`)}
    # a comment inside the class, after the last method
    tail = True
    # the last line of the class


def helper():
    return Store()
`;

function uncoveredOf(src: string, chunks: readonly Chunk[]): number[] {
  return fileCoverage(src, chunks).uncovered;
}

const member = (chunks: readonly Chunk[], sym: string) => {
  const found = chunks.filter((c) => c.symbols.includes(sym));
  assert.equal(found.length, 1, `one chunk defines ${sym}: ${found.map((c) => c.chunk_id).join(', ')}`);
  return found[0];
};

test('fileCoverage counts the non-blank lines no chunk spans (checked against a hand count)', () => {
  const src = 'a\n\nb\nc\n  \nd\n';
  // lines: 1 a, 2 blank, 3 b, 4 c, 5 blank, 6 d, 7 "" (after the final newline)
  assert.deepEqual(fileCoverage(src, [{ start_line: 1, end_line: 3 }]), { nonblank: 4, uncovered: [4, 6] });
  assert.deepEqual(fileCoverage(src, [{ start_line: 1, end_line: 1 }, { start_line: 4, end_line: 7 }]), { nonblank: 4, uncovered: [3] });
  assert.equal(lineRanges([3, 4, 5, 9, 11, 12]), '3-5,9,11-12');
});

test('TypeScript: fields, overloads, accessors, static blocks are members with their doc comments; no holes', async () => {
  const chunks = await chunkFile('src/context.ts', TS_CLASS, REV);
  assert.deepEqual(uncoveredOf(TS_CLASS, chunks), []);
  assert.equal(member(chunks, 'Context.status').text, '  /** The response status. */\n  status = 200;');
  assert.match(member(chunks, 'Context.headers').text, /a comment after a blank line[\s\S]*private headers.*\/\/ a trailing comment$/);
  assert.equal(member(chunks, 'Context.#finalized').text, '  #finalized = false;');
  const overloads = chunks.filter((c) => c.symbols.includes('Context.header'));
  assert.deepEqual(overloads.map((c) => c.text.split('\n').length), [2, 1, 4], 'two overload signatures and the implementation, each its own chunk');
  assert.match(overloads[0].text, /^ {2}\/\*\* Reads or sets a header\. \*\/\n {2}header\(name: string\): string;$/);
  assert.deepEqual(chunks.filter((c) => c.symbols.includes('Context.res')).map((c) => c.text.trim().slice(0, 3)), ['get', 'set']);
  assert.match(member(chunks, 'Context.static').text, /static \{ register\(\); \}/);
  // The deprecated arrow-function field is its own symbol, not inside the method before it.
  assert.match(member(chunks, 'Context.setHeader').text, /^ {2}\/\*\* @deprecated use header\(\) \*\/\n {2}setHeader = /);
  assert.ok(!member(chunks, 'Context.step19').text.includes('setHeader'));
  // The last method does not absorb the field after it; the field takes the closing brace.
  assert.equal(member(chunks, 'Context.#dispatch').text, '  #dispatch(): void {\n    this.#finalized = true;\n  }');
  assert.equal(member(chunks, 'Context.error').text, '  /** Fields after the last method are not the method\'s. */\n  error?: Error;\n}');
  for (const c of chunks.filter((x) => x.symbols.some((s) => s.startsWith('Context.')))) assert.ok(c.references.includes('Context'), `${c.chunk_id} links to its class`);
  // Pieces tile the file in order, without overlap, and their byte spans address the file's bytes.
  for (let i = 1; i < chunks.length; i++) assert.ok(chunks[i].start_byte >= chunks[i - 1].end_byte, chunks[i].chunk_id);
  for (const c of chunks) assert.equal(Buffer.from(TS_CLASS).subarray(c.start_byte, c.end_byte).toString(), c.text);
});

test('a small class stays one chunk and names every member (Class.member) among its symbols', async () => {
  const src = 'export class Point {\n  /** x */\n  x = 0;\n  get norm() { return 1; }\n  move(dx: number) {}\n}\n';
  const chunks = await chunkFile('src/point.ts', src, REV);
  assert.equal(chunks.length, 1);
  assert.deepEqual(chunks[0].symbols, ['Point', 'Point.x', 'Point.norm', 'Point.move']);
  assert.deepEqual(uncoveredOf(src, chunks), []);
});

test('JavaScript: class fields (field_definition) are members; no holes', async () => {
  const chunks = await chunkFile('lib/router.js', JS_CLASS, REV);
  assert.deepEqual(uncoveredOf(JS_CLASS, chunks), []);
  assert.equal(member(chunks, 'Router.routes').text, '  routes = [];');
  assert.equal(member(chunks, 'Router.#count').text, '  static #count = 0;');
  assert.equal(member(chunks, 'Router.fallback').text, '  /** The last field. */\n  fallback = null;\n}');
  assert.ok(!member(chunks, 'Router.on29').text.includes('fallback'));
});

test('Python: docstring in the head, class attributes and decorated methods are members; no holes', async () => {
  const chunks = await chunkFile('pkg/store.py', PY_CLASS, REV);
  assert.deepEqual(uncoveredOf(PY_CLASS, chunks), []);
  const head = chunks.find((c) => c.symbols[0] === 'Store')!;
  assert.equal(head.text, 'class Store(Base):\n    """A key-value store."""');
  assert.equal(member(chunks, 'Store.limit').text, '    limit: int = 10');
  assert.equal(member(chunks, 'Store.name').text, '    # the default name\n    name = "store"');
  assert.match(member(chunks, 'Store.size').text, /^ {4}@property\n {4}def size/);
  assert.equal(member(chunks, 'Store.tail').text, '    # a comment inside the class, after the last method\n    tail = True');
  assert.ok(!member(chunks, 'Store.get29').text.includes('tail'));
});

test('the coverage measure sees a hole: dropping one member chunk reports exactly its lines', async () => {
  const chunks = await chunkFile('src/context.ts', TS_CLASS, REV);
  const dropped = chunks.filter((c) => c.symbols.includes('Context.header'))[2];
  const holes = uncoveredOf(TS_CLASS, chunks.filter((c) => c !== dropped));
  const expected = TS_CLASS.split('\n').map((l, i) => ({ l, n: i + 1 })).filter(({ l, n }) => l.trim() && n >= dropped.start_line && n <= dropped.end_line).map((x) => x.n);
  assert.deepEqual(holes, expected);
  assert.ok(holes.length > 0);
});

const r = new FixtureRepo();
after(() => r.cleanup());

test('index builds report zero uncovered lines and no chunk over the limits: fixtures (TS/JS/Python) and this repository at the gold commit and HEAD', async () => {
  const rev = r.commit('fixtures', { ...SESSION_FILES, ...PARSE_FILES, ...RETRY_FILES, 'src/context.ts': TS_CLASS, 'lib/router.js': JS_CLASS, 'pkg/store.py': PY_CLASS });
  const fixture = await indexAt(r.dir, rev);
  assert.deepEqual(fixture.manifest.coverage, { nonblank_lines: fixture.manifest.coverage!.nonblank_lines, uncovered_lines: 0, files_with_holes: 0 });
  assert.ok(fixture.manifest.coverage!.nonblank_lines > 150);

  const root = projectRoot();
  const pinned = loadGold(join(root, 'data', 'gold')).cases[0].repositoryRevision;
  for (const revision of [pinned, 'HEAD']) {
    const index = await indexAt(root, await new GitRepo(root).resolve(revision), defaultPolicy());
    const holes = index.inventory.filter((e) => e.uncovered_lines).map((e) => `${e.path}: ${e.uncovered_lines}`);
    assert.deepEqual(holes, [], `${revision}: files with non-blank lines in no chunk`);
    assert.equal(index.manifest.coverage!.uncovered_lines, 0);
    const over = index.chunks.filter((c) => c.end_line - c.start_line + 1 > DEFAULT_CHUNK_LIMITS.maxLines || approxTokens(c.text) > DEFAULT_CHUNK_LIMITS.maxTokens);
    assert.deepEqual(over.map((c) => c.chunk_id), [], `${revision}: chunks over the default limits`);
    assert.ok(index.manifest.coverage!.nonblank_lines > 10_000, `${revision}: ${index.manifest.coverage!.nonblank_lines} non-blank lines`);
  }
});
