/**
 * The CLI as `npm pack` ships it, run from a folder that is not the checkout: the tarball's files alone (the
 * package.json `files` list) must be enough, runs go under the current folder and state under EXECRETRIEVAL_HOME,
 * and bootstrap, doctor and run work there. `npm install -g` of the tarball puts exactly these files under
 * <prefix>/lib/node_modules/execretrieval and links bin/execretrieval.js; its dependency install (npm's job,
 * minutes here, as it compiles better-sqlite3) is replaced by the checkout's node_modules, which holds the same
 * locked versions. README ("Install it outside a checkout") gives the full `npm install -g`, checked by hand.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelRoot, projectRoot } from '../../activities/paths.ts';
import { writeSmallSource } from '../temporal/pipelineSupport.ts';

const root = projectRoot();
let dir: string;
let pkg: string;
let home: string;
let elsewhere: string;
let env: NodeJS.ProcessEnv;
const cli = (...args: string[]) => spawnSync(process.execPath, [join(pkg, 'bin', 'execretrieval.js'), ...args], { cwd: elsewhere, env, encoding: 'utf8', timeout: 300_000 });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'execretrieval-pack-'));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { filename: string }[];
  pkg = join(dir, 'prefix', 'lib', 'node_modules', 'execretrieval');
  mkdirSync(pkg, { recursive: true });
  execFileSync('tar', ['xzf', join(dir, packed[0].filename), '-C', pkg, '--strip-components=1']);
  symlinkSync(realpathSync(join(root, 'node_modules')), join(pkg, 'node_modules'));
  // A home whose venv and models are this checkout's (bootstrap then finds them installed and downloads nothing).
  home = join(dir, 'home');
  mkdirSync(home);
  symlinkSync(realpathSync(join(root, '.venv')), join(home, 'venv'));
  symlinkSync(realpathSync(modelRoot()), join(home, 'models'));
  elsewhere = join(dir, 'empty-folder');
  mkdirSync(elsewhere);
  env = { ...process.env, EXECRETRIEVAL_HOME: home };
  delete env.EXECRETRIEVAL_STATE_DIR;
  delete env.TEMPORAL_ADDRESS;
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the program and its data, not the tests, and is not private', () => {
  assert.deepEqual(readdirSync(pkg).filter((f) => f !== 'node_modules').sort(), ['README.md', 'activities', 'bin', 'cli', 'core', 'data', 'docs', 'infra', 'package.json', 'schemas', 'temporal.config.ts', 'tsconfig.json', 'workers', 'workflows']);
  assert.equal(JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).private, undefined);
  assert.ok(existsSync(join(pkg, 'data', 'tasks', 'curated')));
});

test('bootstrap, doctor and run from an empty folder: runs there, state in EXECRETRIEVAL_HOME, nothing in the package', () => {
  const b = cli('bootstrap');
  assert.equal(b.status, 0, b.stderr);
  assert.match(b.stderr, /\[bootstrap\] ready/);
  assert.ok(existsSync(join(home, 'python.json')), 'bootstrap recorded the interpreter in the home');

  const d = cli('doctor', '--json');
  assert.equal(d.status, 0, d.stderr);
  const checks = (JSON.parse(d.stdout) as { checks: { area: string; name: string; status: string; detail: string }[] }).checks;
  const binary = checks.find((c) => c.area === 'temporal' && c.name === 'binary')!;
  assert.equal(binary.status, 'ok');
  assert.ok(binary.detail.startsWith(join(home, 'venv', 'bin', 'temporal')), binary.detail);
  assert.ok(checks.some((c) => c.area === 'models' && c.status === 'ok' && c.detail.includes(join(home, 'models'))));

  const src = join(dir, 'tasks.jsonl');
  writeSmallSource(src);
  const r = cli('run', '--source', src, '--run', 'r1', '--configs', 'local-static-64');
  assert.equal(r.status, 0, r.stderr);
  const runDir = join(elsewhere, 'runs', 'r1');
  assert.ok(existsSync(join(runDir, 'report', 'report.html')));
  assert.match(r.stdout, new RegExp(`report: ${runDir}/report/report\\.md`));
  // The answer (the headline table, best first) comes before the path to the report.
  const table = r.stdout.indexOf('(a) ');
  assert.ok(table > 0 && table < r.stdout.indexOf('report: ') && /\(b\) /.test(r.stdout), r.stdout);
  for (const f of ['temporal.db', 'exec-cache.sqlite', 'embedding-cache.sqlite']) assert.ok(existsSync(join(home, f)), f);
  assert.ok(!existsSync(join(pkg, 'runs')) && !existsSync(join(pkg, '.execretrieval')) && !existsSync(join(pkg, '.venv')), 'nothing written into the installed package');

  const listed = JSON.parse(cli('runs', '--json').stdout) as { dir: string; runs: { run_id: string; status: string }[] };
  assert.equal(listed.dir, join(elsewhere, 'runs'));
  assert.deepEqual(listed.runs.map((x) => [x.run_id, x.status]), [['r1', 'complete']]);
});
