/**
 * Progress as a user sees it, from the real CLI (`score` on a four-query run): a bar on a terminal (a pty from
 * util-linux's `script`), plain lines with counts and ETA in a log, nothing with --quiet (its answer unchanged).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';
import { CORPUS, QUERIES, TOY_WEIGHTS, writeConfig } from '../scoring/fixtures/tinyBenchmark.ts';

let dir: string;
let runDir: string;
let env: NodeJS.ProcessEnv;
const args = () => [join(projectRoot(), 'bin', 'execretrieval.js'), 'score', '--run', runDir, '--replicates', '50'];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'execretrieval-progress-'));
  runDir = join(dir, 'tiny');
  mkdirSync(join(runDir, 'benchmark'), { recursive: true });
  writeFileSync(join(runDir, 'benchmark', 'queries.jsonl'), QUERIES.map((q) => JSON.stringify(q)).join('\n') + '\n');
  writeFileSync(join(runDir, 'benchmark', 'corpus.jsonl'), CORPUS.map((c) => JSON.stringify(c)).join('\n') + '\n');
  writeConfig(runDir, 'toy', TOY_WEIGHTS);
  env = { ...process.env, EXECRETRIEVAL_STATE_DIR: join(dir, 'state') };
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('in a log: plain progress lines, the last with its rate and ETA, no carriage returns', () => {
  const r = spawnSync(process.execPath, args(), { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('executing top-10 snippets'));
  assert.ok(lines.length >= 1, r.stderr);
  // 9 corpus items, all in each of the 4 queries' top 10: 36 pairs.
  assert.match(lines.at(-1)!, /^executing top-10 snippets 36\/36 \(\d+(\.\d)?\/s, ETA 0:00\)$/);
  assert.ok(!r.stderr.includes('\r'));
});

test('on a terminal: a self-overwriting bar that ends as a full line', () => {
  const quoted = [process.execPath, ...args()].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('script', ['-qec', quoted, '/dev/null'], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout);
  assert.match(r.stdout, /\r\x1b\[Kexecuting top-10 snippets \[#{24}\] 36\/36 \(\d+(\.\d)?\/s, ETA 0:00\)\r?\n/);
});

test('--quiet: no progress and no notes on stderr; the headline on stdout as without it', () => {
  const loud = spawnSync(process.execPath, args(), { env, encoding: 'utf8' });
  const quiet = spawnSync(process.execPath, [...args(), '--quiet'], { env, encoding: 'utf8' });
  assert.equal(quiet.status, 0, quiet.stderr);
  assert.equal(quiet.stderr, '');
  assert.match(loud.stderr, /ranked toy/);
  assert.equal(quiet.stdout, loud.stdout);
  assert.match(quiet.stdout, /\(a\) toy/);
});

test('embed in a log: the sweep\'s progress in texts, its last line complete', async () => {
  const [{ startTestTemporal }, { freshState }] = await Promise.all([import('../support/temporal.ts'), import('../temporal/pipelineSupport.ts')]);
  const t = await startTestTemporal();
  try {
    const r = spawnSync(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), 'embed', '--run', runDir, '--configs', 'local-static-64'], {
      env: { ...env, EXECRETRIEVAL_STATE_DIR: freshState(join(dir, 'embed-state')), TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.trim().startsWith('embedding: texts'));
    // 4 queries and 9 corpus items, each embedded once.
    assert.match(lines.at(-1) ?? '', /^ {3}embedding: texts 13\/13 \(\d+(\.\d)?\/s, ETA 0:00\)$/, r.stderr);
    assert.ok(!r.stderr.includes('\r'));
  } finally {
    await t.stop();
  }
});
