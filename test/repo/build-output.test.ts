import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtContent, MINIFIED_LINE_CHARS } from '../../core/repo/buildOutput.ts';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { indexAt } from './helpers.ts';

/**
 * Build output is recognised by content and by the repository's .gitignore, not by a folder named
 * `build`: build scripts under build/ stay searchable, a committed bundle and force-added ignored output
 * do not, and each exclusion says why.
 */
const r = new FixtureRepo();
after(() => r.cleanup());

const WEBPACK = `/******/ (() => { // webpackBootstrap
/******/ 	var __webpack_modules__ = ({});
/******/ 	function __webpack_require__(moduleId) { return __webpack_modules__[moduleId](); }
/******/ })();
`;
const MINIFIED = `!function(e){${'var a=1;'.repeat(200)}}(window);\n`;
const ESBUILD = `// node_modules/left-pad/index.js\nvar leftPad = (s) => s;\n\n// node_modules/right-pad/index.js\nvar rightPad = (s) => s;\n\n// src/app.ts\nconsole.log(leftPad(rightPad('x')));\n`;

r.write({
  '.gitignore': 'out/\n*.generated.js\n!keep.generated.js\n',
  'build/build.ts': "import { build } from 'esbuild';\n\n/** Bundles the library for npm. */\nexport async function bundle() {\n  await build({ entryPoints: ['src/index.ts'], outdir: 'dist' });\n}\n",
  'scripts/build/release.py': 'def release():\n    """Tag and publish."""\n    return 0\n',
  'src/index.ts': 'export const answer = 42;\n',
  'public/app.bundle.js': WEBPACK,
  'public/vendor.js': MINIFIED,
  'public/esbuild-out.js': ESBUILD,
  'public/with-map.js': 'console.log(1);\n//# sourceMappingURL=with-map.js.map\n',
  'src/long-data.py': `TABLE = "${'x'.repeat(MINIFIED_LINE_CHARS + 10)}"\n`,
  'out/server.js': 'module.exports = function serve() {};\n',
  'src/keep.generated.js': 'export const kept = true;\n',
  'src/schema.generated.js': 'export const s = 1;\n',
});
r.git('add', '-A');
r.git('add', '-f', 'out/server.js', 'src/schema.generated.js'); // committed although ignored
r.git('commit', '-q', '-m', 'fixture');
const rev = r.git('rev-parse', 'HEAD');

test('a source build/ folder is kept; bundles, minified files and force-added ignored output are excluded with their evidence', async () => {
  const index = await indexAt(r.dir, rev);
  const reason = (p: string) => index.inventory.find((e) => e.path === p)?.reason;
  assert.equal(reason('build/build.ts'), 'included');
  assert.equal(reason('scripts/build/release.py'), 'included');
  assert.ok(index.chunks.some((c) => c.file === 'build/build.ts' && c.symbols.includes('bundle')), 'the build script is searchable');
  assert.equal(reason('src/index.ts'), 'included');
  assert.equal(reason('src/long-data.py'), 'included', 'a long line in Python is still source');
  assert.equal(reason('src/keep.generated.js'), 'included', 'a negated .gitignore rule un-ignores');
  assert.equal(reason('public/app.bundle.js'), 'build-output:bundled:bundler-runtime');
  assert.equal(reason('public/vendor.js'), 'build-output:minified');
  assert.equal(reason('public/esbuild-out.js'), 'build-output:bundled:inlined-modules');
  assert.equal(reason('public/with-map.js'), 'build-output:bundled:source-map-trailer');
  assert.equal(reason('out/server.js'), 'build-output:gitignored:.gitignore:1:out/');
  assert.equal(reason('src/schema.generated.js'), 'build-output:gitignored:.gitignore:2:*.generated.js');
  for (const f of ['public/app.bundle.js', 'out/server.js']) assert.ok(!index.chunks.some((c) => c.file === f), f);
});

test('the working tree\'s ignore files play no part: only the revision\'s .gitignore decides', async () => {
  r.write({ '.gitignore': 'src/\nbuild/\n' }); // uncommitted edit
  const index = await indexAt(r.dir, rev);
  assert.equal(index.inventory.find((e) => e.path === 'src/index.ts')?.reason, 'included');
  assert.equal(index.inventory.find((e) => e.path === 'build/build.ts')?.reason, 'included');
  r.git('checkout', '--', '.gitignore');
});

test('detection off (repo index --no-default-excludes) keeps everything; the policy hash says so', async () => {
  const on = await indexAt(r.dir, rev);
  const off = await indexAt(r.dir, rev, defaultPolicy({ exclude: [], detectBuildOutput: false }));
  assert.ok(off.inventory.every((e) => e.included), off.inventory.filter((e) => !e.included).map((e) => `${e.path}: ${e.reason}`).join('; '));
  assert.notEqual(on.manifest.policy_hash, off.manifest.policy_hash);
});

test('builtContent: only JS/CSS are judged by content; each kind of evidence on its own', () => {
  assert.equal(builtContent('a.ts', MINIFIED), null);
  assert.equal(builtContent('a.js', MINIFIED), 'minified');
  assert.equal(builtContent('a.css', `.a{color:red}${'.b{margin:0}'.repeat(120)}\n`), 'minified');
  assert.equal(builtContent('a.js', 'export function f() {\n  return 1;\n}\n'), null);
  assert.equal(builtContent('a.js', '// node_modules/x/index.js\nvar x = 1;\n'), null, 'one inlined-module comment is not a bundle');
  assert.equal(builtContent('a.mjs', WEBPACK), 'bundled:bundler-runtime');
});
