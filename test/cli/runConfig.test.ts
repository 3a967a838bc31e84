import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRunConfig } from '../../activities/runConfigFile.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { writeRejectedSource } from '../support/rejectedSource.ts';

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), ...args], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });

test('the shipped example run file is valid and names every field of the schema', () => {
  const example = join(PROJECT_ROOT, 'data', 'run.example.yaml');
  const c = loadRunConfig(example);
  assert.deepEqual(Object.keys(c).sort(), ['batch', 'batches_in_flight', 'cap', 'configs', 'generator', 'id', 'profile', 'rebuild', 'replicates', 'seed', 'source', 'timeout_s']);
});

test('a bad run file is one line naming the file and the field, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runcfg-'));
  try {
    const cases: [string, RegExp][] = [
      ['seed: seven\n', /bad\.yaml: seed: .*number/i],
      ['sede: 7\n', /bad\.yaml: sede: .*unrecognized/i],
      ['configs: []\n', /bad\.yaml: configs: /],
      ['source: [unclosed\n', /bad\.yaml: not valid YAML/],
    ];
    for (const [text, re] of cases) {
      const f = join(dir, 'bad.yaml');
      writeFileSync(f, text);
      const r = cli('run', f);
      assert.equal(r.status, 2, `${text}: ${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], re);
    }
    const missing = cli('run', join(dir, 'none.yaml'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /none\.yaml: no such file/);
    const badFlag = cli('run', '--seed', 'abc');
    assert.equal(badFlag.status, 2);
    assert.match(badFlag.stderr, /--seed: expected an integer >= 0, got 'abc'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run takes its settings from the file, and a flag overrides the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runcfg-'));
  try {
    // One task every build rejects (check() never calls its candidate): the build runs, records its settings, exits 3.
    const src = join(dir, 'src.jsonl');
    writeRejectedSource(src);
    const run = join(dir, 'run');
    const f = join(dir, 'run.yaml');
    writeFileSync(f, `id: ${run}\nsource: ${src}\nprofile: check\ncap: 8\nseed: 11\n`);
    const manifest = () => JSON.parse(readFileSync(join(run, 'benchmark', 'manifest.json'), 'utf8'));
    const a = cli('run', f);
    assert.equal(a.status, 3, a.stderr);
    assert.deepEqual([manifest().profile, manifest().mutation.cap, manifest().seed], ['check', 8, 11]);
    // The build manifest records the sandbox layers in force, without per-process values.
    assert.equal(manifest().sandbox_layers.audit_hook, true);
    assert.equal('uid' in manifest().sandbox_layers, false);
    const b = cli('run', f, '--cap', '5', '--rebuild');
    assert.equal(b.status, 3, b.stderr);
    assert.deepEqual([manifest().profile, manifest().mutation.cap, manifest().seed], ['check', 5, 11]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
