/**
 * Paths in `.execretrieval/python.json` belong to the checkout that reads them (issue 26): a checkout copied with
 * its state file ran the original checkout's venv. Bootstrap now records the venv relative to the checkout, and an
 * absolute path from an older file counts only when it lies inside the checkout that reads it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ownVenvPath, venvPythonExecutable } from '../../activities/python/interpreter.ts';
import { projectRoot } from '../../activities/paths.ts';

test('a recorded venv path resolves in the checkout that reads it, never in another one', () => {
  const copy = '/srv/copy-of-execretrieval';
  assert.equal(ownVenvPath(copy, '.venv/bin/python'), '/srv/copy-of-execretrieval/.venv/bin/python');
  // What an older bootstrap wrote in the original checkout, read by the copy: not this checkout's, ignored.
  assert.equal(ownVenvPath(copy, '/work/original/.venv/bin/python'), null);
  assert.equal(ownVenvPath(copy, '/srv/copy-of-execretrieval-2/.venv/bin/python'), null, 'a sibling with a common prefix is another checkout');
  assert.equal(ownVenvPath(copy, '/srv/copy-of-execretrieval/.venv/bin/python'), '/srv/copy-of-execretrieval/.venv/bin/python');
  assert.equal(ownVenvPath(copy, undefined), null);
});

test('this checkout runs its own venv: the interpreter found lies under the project root', () => {
  const py = venvPythonExecutable();
  assert.equal(py, join(projectRoot(), '.venv', 'bin', 'python'));
  assert.ok(existsSync(py));
});
