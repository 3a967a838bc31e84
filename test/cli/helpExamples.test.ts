/**
 * The examples on the help pages run as written: each `$ execretrieval ...` line of a page whose command runs in
 * seconds on shipped data (or on a small scored run named `default`, as `npm start` leaves one) is executed from a
 * folder of its own, an installed-style home (EXECRETRIEVAL_HOME) holding this checkout's venv and models.
 * The repository-evaluation examples run in a clone of this repository (they index it at a pinned commit).
 * The examples of long jobs (run, build, ui, serve-embeddings) and of commands that need an outside service (a
 * provider's key, your own search service) are only parsed here; they run in their own tests.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HELP_PAGES_FILE } from '../../cli/helpPages.ts';
import { modelRoot, projectRoot } from '../../activities/paths.ts';
import { CORPUS, QUERIES } from '../scoring/fixtures/tinyBenchmark.ts';

const pages = JSON.parse(readFileSync(HELP_PAGES_FILE, 'utf8')) as Record<string, string>;
/** Pages whose examples run here, in seconds, in page order (later examples use what earlier ones added). */
const RUN_HERE = [
  'configs', 'similarity', 'embed', 'report', 'compare', 'cache', 'cache stats', 'cache export', 'cache verify', 'cache repair', 'runs', 'doctor',
  'validate', 'import', 'import-rankings', 'import-vectors', 'rerank', 'score', 'compare-runs', 'generate', 'generate benchmark', 'audit',
];
/** Pages whose examples run in a clone of this repository (`repo index` reads its git objects). */
const IN_CHECKOUT = ['repo', 'repo index', 'repo eval', 'repo schema', 'repo diagnose', 'repo gate'];
const LONG_JOBS = ['run', 'build', 'ui', 'serve-embeddings', 'bootstrap'];
/** Pages whose examples need a service outside: a provider's API key, the user's own search service. */
const NEEDS_SERVICE = ['retrieve', 'generate registry'];

/** `$ execretrieval a "b c" d   # comment` → ['a', 'b c', 'd'] (double quotes only, as the pages write them). */
function argvOf(line: string): string[] {
  const body = line.replace(/^\s*\$ execretrieval /, '').replace(/\s+#.*$/, '').replace(/\s*&&.*$/, '').replace(/\s*&$/, '');
  return [...body.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}
const examples = Object.entries(pages).flatMap(([page, text]) => [...text.matchAll(/^\s+\$ execretrieval .*$/gm)].map((m) => ({ page, argv: argvOf(m[0]) })));

let dir: string;
let checkout: string;
let env: NodeJS.ProcessEnv;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'execretrieval-examples-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  symlinkSync(realpathSync(join(projectRoot(), '.venv')), join(home, 'venv'));
  symlinkSync(realpathSync(modelRoot()), join(home, 'models'));
  writeFileSync(join(home, 'python.json'), readFileSync(join(projectRoot(), '.execretrieval', 'python.json')));
  env = { ...process.env, EXECRETRIEVAL_HOME: home };
  delete env.EXECRETRIEVAL_STATE_DIR;
  // runs/default: a small run embedded under local-static-64 and scored, in the examples' folder.
  const run = join(dir, 'runs', 'default');
  mkdirSync(join(run, 'benchmark'), { recursive: true });
  writeFileSync(join(run, 'benchmark', 'queries.jsonl'), QUERIES.map((q) => JSON.stringify(q)).join('\n') + '\n');
  writeFileSync(join(run, 'benchmark', 'corpus.jsonl'), CORPUS.map((c) => JSON.stringify(c)).join('\n') + '\n');
  for (const args of [['embed', '--run', 'default', '--configs', 'local-static-64'], ['score', '--run', 'default', '--replicates', '100']]) {
    const s = spawnSync(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), ...args, '--quiet'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(s.status, 0, s.stderr);
  }
  // What the examples name as a user's own: the repository's data/ (sample tasks), a second scored run, the state
  // folder of a checkout (`cache repair --path .execretrieval/...`).
  symlinkSync(join(projectRoot(), 'data'), join(dir, 'data'));
  cpSync(run, join(dir, 'runs', 'after'), { recursive: true });
  symlinkSync(home, join(dir, '.execretrieval'));
  checkout = join(dir, 'checkout');
  const clone = spawnSync('git', ['clone', '--quiet', '--shared', projectRoot(), checkout], { encoding: 'utf8' });
  assert.equal(clone.status, 0, clone.stderr);
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every example line belongs to a page that runs here or to a long job', () => {
  const pagesWithExamples = [...new Set(examples.map((e) => e.page))].sort();
  const known = [...RUN_HERE, ...IN_CHECKOUT, ...LONG_JOBS, ...NEEDS_SERVICE];
  assert.deepEqual(pagesWithExamples.filter((p) => !known.includes(p)), []);
  // Every page has an example (issue 38), and every page listed here has one.
  assert.deepEqual(Object.keys(pages).filter((p) => !pagesWithExamples.includes(p)), []);
  assert.deepEqual(known.filter((p) => !pagesWithExamples.includes(p)), []);
  for (const e of examples) assert.equal(e.argv[0], e.page.split(' ')[0], `${e.page}: ${e.argv.join(' ')}`);
});

function runExamples(pagesHere: readonly string[], cwd: () => string): void {
  for (const e of examples.filter((x) => pagesHere.includes(x.page))) {
    const r = spawnSync(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), ...e.argv], { cwd: cwd(), env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `${e.argv.join(' ')}\n${r.stderr}`);
    assert.ok((r.stdout + r.stderr).trim().length > 0, `${e.argv.join(' ')}: no output`);
  }
}

test('the examples of the pages that run here exit 0 with output', { timeout: 600_000 }, () => runExamples(RUN_HERE, () => dir));

test('the repository-evaluation examples run in a clone of this repository: index, eval, diagnose, gate', { timeout: 600_000 }, () => runExamples(IN_CHECKOUT, () => checkout));
