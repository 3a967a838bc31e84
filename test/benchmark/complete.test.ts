import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchmarkCompleteness } from '../../activities/benchmark/complete.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { writeRejectedSource } from '../support/rejectedSource.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

test('a benchmark folder is complete only with a manifest whose hashes match its files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-'));
  try {
    assert.deepEqual(benchmarkCompleteness(join(dir, 'nope')), { complete: false, reason: 'not built yet' });
    const q = '{"query_id":"q1"}\n';
    writeFileSync(join(dir, 'queries.jsonl'), q);
    assert.deepEqual(benchmarkCompleteness(dir), { complete: false, reason: 'no manifest.json (an interrupted build)' });
    writeFileSync(join(dir, 'manifest.json'), '{"files": {"queries.jsonl": "');
    assert.deepEqual(benchmarkCompleteness(dir), { complete: false, reason: 'manifest.json is unreadable' });
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ files: { 'queries.jsonl': sha(q), 'corpus.jsonl': sha('') } }));
    assert.deepEqual(benchmarkCompleteness(dir), { complete: false, reason: 'corpus.jsonl is missing' });
    writeFileSync(join(dir, 'corpus.jsonl'), '');
    assert.deepEqual(benchmarkCompleteness(dir), { complete: true });
    writeFileSync(join(dir, 'queries.jsonl'), q.slice(0, 5)); // truncated by a crash after the manifest, or edited
    assert.deepEqual(benchmarkCompleteness(dir), { complete: false, reason: 'queries.jsonl differs from its manifest hash' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run rebuilds a half-written benchmark folder instead of skipping the build as "exists"', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-run-'));
  try {
    const run = join(dir, 'run');
    // What a build killed before its manifest leaves: files, no manifest.json.
    mkdirSync(join(run, 'benchmark'), { recursive: true });
    writeFileSync(join(run, 'benchmark', 'queries.jsonl'), '{"query_id":"half"}\n');
    // A source whose one task every build rejects (check() never calls its candidate): the build must run to say so.
    const src = join(dir, 'src.jsonl');
    writeRejectedSource(src);
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'run', '--source', src, '--run', run], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.match(r.stderr, /== build: .*benchmark is incomplete \(no manifest\.json \(an interrupted build\)\): building it again/);
    // The build ran again (its rejection is this source's), through the pipeline workflow.
    assert.match(r.stderr, /run stopped at build: build: no task accepted/);
    assert.equal(r.status, 3, r.stderr);
    assert.doesNotMatch(r.stderr, /== embed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
