import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProgram } from '../cli/main.ts';

test('the CLI lists its subcommands', () => {
  const names = buildProgram().commands.map((c) => c.name());
  assert.ok(names.includes('validate'));
});
