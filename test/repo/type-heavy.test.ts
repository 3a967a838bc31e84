import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Chunk } from '../../schemas/repoIndex.ts';
import { chunkFile } from '../../activities/repo/indexBuild.ts';
import { fileCoverage } from '../../core/repo/coverage.ts';
import { typeHeavySource } from './typeHeavyFixture.ts';

/**
 * Chunks keep their names on type-heavy TypeScript (issue 29: in such a file 164 of 185 chunks were
 * `call_site` with no symbol, a long interface's parts lost it, a closing line fell in no chunk).
 */
const REV = 'b'.repeat(40);
const DEFINING = new Set(['definition', 'declaration']);
const named = (chunks: Chunk[], symbol: string) => chunks.filter((c) => c.symbols.includes(symbol));
const show = (c: Chunk) => `${c.start_line}-${c.end_line} ${c.role} [${c.symbols.join(',')}]`;

for (const path of ['src/types.ts', 'types/index.d.ts']) {
  test(`${path}: every chunk but the imports and the default re-export is named and defining; no uncovered line`, async () => {
    const src = typeHeavySource(75);
    const chunks = await chunkFile(path, src, REV);
    assert.deepEqual(fileCoverage(src, chunks).uncovered, [], 'every non-blank line is in a chunk');
    const unnamed = chunks.filter((c) => !(DEFINING.has(c.role) && c.symbols.length > 0));
    assert.deepEqual(unnamed.map((c) => [c.role, c.text.trim().split('\n')[0]]), [
      ['import', "import type { IncomingMessage, ServerResponse } from 'node:http';"],
      ['call_site', 'export default createApp;'],
    ], unnamed.map(show).join('\n'));

    // The long interface (over 900 lines of overloads) is cut into parts; each keeps its name and role,
    // and each overload set is named (Iface.method) by the part that holds it.
    const parts = named(chunks, 'AppInstance');
    const span = parts[parts.length - 1].end_line - parts[0].start_line + 1;
    assert.ok(span > 900 && parts.length >= 10, `${parts.length} parts over ${span} lines`);
    for (const p of parts) assert.equal(p.role, 'declaration', show(p));
    assert.ok(parts.slice(1).every((p) => p.parent === parts[0].chunk_id), 'parts link to the first');
    for (const m of ['get', 'post', 'allRoute71', 'getRoute72', 'addHook', 'server']) assert.ok(parts.some((p) => p.symbols.includes(`AppInstance.${m}`)), m);
    assert.ok(src.split('\n')[parts[parts.length - 1].end_line - 1] === '}', "the interface's closing line is in its last part");

    const want: [string, string[]][] = [
      ['Payload', []],
      ['RouteGeneric', []],
      ['HookName', []],
      ['Handler', []],
      ['LogLevel', []],
      ['ContentKind', []],
      ['Errors', ['AppError', 'Errors.AppError', 'Errors.ErrorCode', 'Errors.isAppError']],
      ['Internal', ['Scheduler', 'Internal.Scheduler', 'Internal.version']],
      ['node:http', ['IncomingMessage', 'node:http.IncomingMessage']],
      ['global', ['Window', 'global.Window']],
      ['app', ['app.listen', 'app.close', 'app.version']],
    ];
    for (const [symbol, also] of want) {
      const [c] = named(chunks, symbol);
      assert.ok(c && DEFINING.has(c.role), `${symbol}: ${c ? show(c) : 'no chunk'}`);
      for (const a of also) assert.ok(c.symbols.includes(a), `${symbol} names ${a}: ${show(c)}`);
    }
    // Overload sets: every signature of createApp and defineRoute is a chunk named by the function.
    assert.equal(named(chunks, 'createApp').length, 2);
    assert.equal(named(chunks, 'defineRoute').length, 3);
  });
}

test('a long namespace, declare module and object-literal API are split per member, every part named', async () => {
  const ifaces = Array.from({ length: 30 }, (_, i) => `  /** Options of plugin ${i}. */\n  interface Plugin${i}Options {\n    enabled: boolean;\n    level: ${i};\n  }`).join('\n');
  const keys = Array.from({ length: 30 }, (_, i) => `  /** Handler ${i}. */\n  handle${i}(req: Request): Response {\n    return respond(req, ${i});\n  },`).join('\n');
  const src = `declare module 'framework' {\n${ifaces}\n}\n\nexport namespace Plugins {\n${ifaces.replace(/interface/g, 'export interface')}\n}\n\nexport const handlers = {\n${keys}\n};\n`;
  const chunks = await chunkFile('src/augment.ts', src, REV);
  assert.deepEqual(fileCoverage(src, chunks).uncovered, []);
  for (const c of chunks) assert.ok(DEFINING.has(c.role) && c.symbols.length > 0, show(c));
  const inModule = chunks.filter((c) => c.symbols.includes('framework') || c.symbols.some((s) => s.startsWith('framework.')));
  assert.ok(inModule.length >= 30, `${inModule.length} chunks in the module`);
  assert.deepEqual(named(chunks, 'framework.Plugin7Options').map((c) => c.symbols), [['Plugin7Options', 'framework.Plugin7Options']]);
  assert.equal(named(chunks, 'framework.Plugin7Options')[0].role, 'declaration');
  assert.deepEqual(named(chunks, 'Plugins.Plugin29Options').map((c) => [c.role, c.text.trimEnd().endsWith('}\n}') || c.text.trimEnd().endsWith('}')]), [['declaration', true]]);
  const h = named(chunks, 'handlers.handle12');
  assert.equal(h.length, 1);
  assert.deepEqual([h[0].role, h[0].symbols], ['definition', ['handle12', 'handlers.handle12']]);
  assert.match(h[0].text, /^ {2}\/\*\* Handler 12\. \*\/\n {2}handle12\(/, 'the doc comment travels with its key');
});

test('Python: a module docstring is docs, not a call site', async () => {
  const src = '"""HTTP client.\n\nSends requests and reads responses.\n"""\n\nimport os\n\nTIMEOUT = 5\n\n\ndef get(url):\n    """Fetch a URL."""\n    return url\n';
  const chunks = await chunkFile('pkg/client.py', src, REV);
  assert.deepEqual(chunks.map((c) => [c.start_line, c.end_line, c.role, c.symbols]), [
    [1, 4, 'docs', []],
    [6, 6, 'import', []],
    [8, 8, 'definition', ['TIMEOUT']],
    [11, 13, 'definition', ['get']],
  ]);
});

test("a type's stray closing line (`;` on its own, an extra `}` error recovery leaves) stays in the type's chunk", async () => {
  const src = "export type Mode =\n  | 'strict'\n  | 'loose'\n;\n\nexport interface Opts {\n  mode: Mode;\n}\n}\n\nexport enum Level { Low, High }\n;\n";
  const chunks = await chunkFile('src/mode.ts', src, REV);
  assert.deepEqual(fileCoverage(src, chunks).uncovered, []);
  assert.deepEqual(chunks.map((c) => [c.start_line, c.end_line, c.symbols[0]]), [
    [1, 4, 'Mode'],
    [6, 9, 'Opts'],
    [11, 12, 'Level'],
  ]);
});
