// Help pages come from cli/helpPages.json (bin/execretrieval.js prints them without loading tsx or any command):
// the file must be what the commands themselves render, and every page must be answered from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HELP_PAGES_FILE, renderHelpPages } from '../../cli/helpPages.ts';
import { helpPageKey } from '../../cli/commandTable.js';
import { projectRoot } from '../../activities/paths.ts';

const stored = JSON.parse(readFileSync(HELP_PAGES_FILE, 'utf8')) as Record<string, string>;

test('cli/helpPages.json is what the commands render (else: node --import tsx cli/helpPages.ts --write)', () => {
  assert.deepEqual(stored, renderHelpPages());
  assert.ok(Object.keys(stored).length >= 35);
  // No page carries this machine's paths (a default shown as a path would be the generating checkout's).
  for (const [k, v] of Object.entries(stored)) assert.ok(!v.includes(projectRoot()), k);
});

test('which page a command line asks for', () => {
  const pages = { repo: 'R', 'repo index': 'RI', score: 'S' };
  assert.equal(helpPageKey(['repo', 'index', '--help'], pages), 'repo index');
  assert.equal(helpPageKey(['repo', '--help'], pages), 'repo');
  assert.equal(helpPageKey(['score', '--run', 'x', '-h'], pages), 'score');
  assert.equal(helpPageKey(['score', '--run', 'x'], pages), null);
  assert.equal(helpPageKey(['score', '--', '--help'], pages), null);
  assert.equal(helpPageKey(['nope', '--help'], pages), null);
});

test('every page is printed from the file by the front end (its speed: bench/helpSpeed.ts)', () => {
  for (const [key, page] of Object.entries(stored)) {
    const r = spawnSync(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), ...key.split(' '), '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0, key);
    assert.equal(r.stdout, page, key);
  }
});
