import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../../workers/registry.ts';

function put(path: string, text = '{}\n') {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

test('execretrieval runs: each run with its kind, the stages its files show done, and the next stage to do', () => {
  const runs = mkdtempSync(join(tmpdir(), 'runs-'));
  try {
    const q = '{"query_id":"q1"}\n';
    const sha = createHash('sha256').update(q).digest('hex');
    const built = (d: string) => {
      put(join(runs, d, 'benchmark', 'queries.jsonl'), q);
      put(join(runs, d, 'benchmark', 'manifest.json'), JSON.stringify({ files: { 'queries.jsonl': sha } }));
    };
    built('full');
    put(join(runs, 'full', 'embeddings', 'report.json'));
    put(join(runs, 'full', 'scoring', 'manifest.json'));
    put(join(runs, 'full', 'report', 'summary.json'));
    built('embedded');
    put(join(runs, 'embedded', 'embeddings', 'report.json'));
    put(join(runs, 'embedded', 'ledger.sqlite'), ''); // hosted embeddings' ledger rows: still a benchmark run
    put(join(runs, 'gen-registry', 'ledger.sqlite'), ''); // a registry phase still running
    put(join(runs, 'killed-build', 'benchmark', 'queries.jsonl'), q); // no manifest: the build did not finish
    put(join(runs, 'gen', 'ledger.sqlite'), '');
    put(join(runs, 'gen', 'registry.jsonl'), '');

    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'runs', '--dir', runs, '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const got = Object.fromEntries(
      (JSON.parse(r.stdout).runs as { run_id: string; kind: string; status: string; stages: { stage: string; done: boolean }[] }[]).map((x) => [
        x.run_id,
        [x.kind, x.status, x.stages.filter((s) => s.done).map((s) => s.stage).join(' ')],
      ]),
    );
    assert.deepEqual(got, {
      full: ['benchmark', 'complete', 'build embed score report'],
      embedded: ['benchmark', 'incomplete: score', 'build embed'],
      'killed-build': ['benchmark', 'incomplete: build', ''],
      gen: ['generation', 'incomplete: benchmark', 'registry'],
      'gen-registry': ['generation', 'incomplete: registry', ''],
    });
    const text = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'runs', '--dir', runs], { encoding: 'utf8' });
    assert.match(text.stdout, /^killed-build\s+benchmark\s+incomplete: build\s+-\s+\d{4}-/m);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});
