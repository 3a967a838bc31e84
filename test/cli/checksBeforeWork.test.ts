/**
 * Options and caches are checked before any work (issue 37): `score --timeout -5` ranked everything and exited 5
 * as a sandbox fault after 48 s; `run --from score --until build` exited 2 only after starting Temporal; a run id
 * with `../` built outside the project; `run` found a damaged execution cache only at the score stage. Each now
 * ends with one line and its exit code before Temporal, the sandbox or the run folder is touched.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../activities/paths.ts';

const pexec = promisify(execFile);

async function cli(args: string[], env: Record<string, string>, cwd = projectRoot()): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await pexec(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), ...args], { cwd, timeout: 60_000, env: { ...process.env, ...env } });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Exactly one line on stderr (besides commander's `--help` hint after a usage error): no stage, no stack. */
function oneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split('\n').filter((l) => l.trim() && l !== '(add --help for the options)');
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0], pattern);
}

describe('checked before any work', () => {
  let dir: string;
  let state: string;
  let env: Record<string, string>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-checks-'));
    state = join(dir, 'state');
    env = { EXECRETRIEVAL_STATE_DIR: state };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('score --timeout -5 / 0 / abc: exit 2, one line, nothing ranked', async () => {
    const run = join(dir, 'some-run');
    mkdirSync(run);
    for (const bad of ['-5', '0', 'abc']) {
      const r = await cli(['score', '--run', run, `--timeout=${bad}`], env);
      assert.equal(r.code, 2, r.stderr);
      oneLine(r.stderr, /--timeout must be a number of seconds in \(0, 3600\]/);
    }
    assert.deepEqual(readdirSync(run), []);
  });

  test('run --from score --until build: exit 2 before Temporal starts', async () => {
    const r = await cli(['run', '--run', join(dir, 'r1'), '--from', 'score', '--until', 'build'], env);
    assert.equal(r.code, 2, r.stderr);
    oneLine(r.stderr, /--from score --until build: score comes after build, so nothing would run/);
    assert.equal(existsSync(join(dir, 'r1')), false);
    assert.equal(existsSync(join(state, 'temporal.db')), false, 'no dev server was started');
  });

  test("run --run ../x: exit 2, nothing created outside runs/", async () => {
    const cwd = join(dir, 'project', 'sub');
    mkdirSync(cwd, { recursive: true });
    const r = await cli(['run', '--run', '../escaped', '--until', 'build'], env, cwd);
    assert.equal(r.code, 2, r.stderr);
    oneLine(r.stderr, /--run \.\.\/escaped: a run id may not contain '\.\.'/);
    assert.equal(existsSync(join(dir, 'project', 'escaped')), false);
  });

  test('run with a damaged execution cache: exit 5 naming the file and the repair, before build', async () => {
    mkdirSync(state, { recursive: true });
    const cache = join(state, 'exec-cache.sqlite');
    writeFileSync(cache, Buffer.alloc(8192, 0x33));
    const r = await cli(['run', '--run', join(dir, 'r2'), '--source', 'curated', '--configs', 'bm25'], env);
    assert.equal(r.code, 5, r.stderr);
    oneLine(r.stderr, /exec-cache\.sqlite: damaged cache \(.*\): run `execretrieval cache repair --path .*exec-cache\.sqlite`/);
    assert.equal(existsSync(join(dir, 'r2')), false, 'no stage ran');
    assert.equal(existsSync(join(state, 'temporal.db')), false, 'no dev server was started');
  });
});

describe('a file given as the run', () => {
  test('report.html as --run: exit 2 naming the run it belongs to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'er-runfile-'));
    try {
      const run = join(dir, 'r');
      mkdirSync(join(run, 'benchmark'), { recursive: true });
      mkdirSync(join(run, 'report'));
      const html = join(run, 'report', 'report.html');
      writeFileSync(html, '<html></html>');
      for (const cmd of ['score', 'report']) {
        const r = await cli([cmd, '--run', html], { EXECRETRIEVAL_STATE_DIR: join(dir, 'state') });
        assert.equal(r.code, 2, r.stderr);
        oneLine(r.stderr, new RegExp(`--run ${html} is a file, not a run directory: did you mean --run ${run}\\?`));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
