/** `validate`'s argument checks (issue 11): a bad --timeout or --profile is one line on stderr and exit code 2. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseProfile } from '../../cli/commands/validate.ts';
import { parseTimeout } from '../../cli/options.ts';

const bin = join(process.cwd(), 'bin', 'execretrieval.js');

test('parseTimeout takes seconds in (0, 3600] and refuses the rest', () => {
  assert.equal(parseTimeout('5'), 5);
  assert.equal(parseTimeout('0.25'), 0.25);
  assert.equal(parseTimeout('3600'), 3600);
  for (const bad of ['abc', '', ' ', '0', '-1', 'NaN', 'Infinity', '3601', '1e9', '5s']) {
    assert.throws(() => parseTimeout(bad), (e: Error & { exitCode?: number }) => e.exitCode === 2 && /--timeout must be a number of seconds in \(0, 3600\]/.test(e.message), bad);
  }
  assert.equal(parseProfile('mbpp'), 'mbpp');
  assert.throws(() => parseProfile('nope'), /--profile must be one of default, mbpp, check, canonical, got "nope"/);
});

test('validate --timeout abc: one line on stderr, exit code 2, nothing run', () => {
  for (const args of [['--timeout', 'abc'], ['--timeout', '-3'], ['--profile', 'nope']]) {
    const r = spawnSync(process.execPath, [bin, 'validate', ...args, 'data/samples/tasks.jsonl'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^error: option '--(timeout|profile) <\w+>' argument '.*' is invalid\. --(timeout|profile) must be /);
  }
});
