// The plain-JS command table that bin/execretrieval.js answers --help from, against the commands the modules
// really register; and the front end's routing (help, version, unknown command, `help <command>`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { COMMAND_TABLE, nearestNames, route, topLevelHelp } from '../../cli/commandTable.js';
import { buildProgram } from '../../cli/main.ts';
import { programFor } from '../../cli/entry.ts';
import { REBUILD_CACHE_COMMANDS, cachePaths } from '../../cli/rebuildCache.ts';
import { defaultCachePath } from '../../activities/exec/oracle.ts';
import { projectRoot } from '../../activities/paths.ts';

test('every command has a row in the table, and each row loads the module that registers that command alone', async () => {
  const registered = buildProgram().commands.map((c) => c.name()).sort();
  assert.deepEqual(COMMAND_TABLE.map((r) => r.name).sort(), registered);
  for (const row of COMMAND_TABLE) {
    const names = (await programFor(row)).commands.map((c) => c.name());
    assert.deepEqual(names, [row.name], row.module);
    assert.ok(topLevelHelp().includes(`  ${row.name} `), row.name);
  }
});

test('the lazily loaded program adds --rebuild-cache under the same commands; the flag names the oracle\'s cache file', async () => {
  for (const path of REBUILD_CACHE_COMMANDS) {
    const [root, sub] = path.split(' ');
    const program = await programFor(COMMAND_TABLE.find((r) => r.name === root)!);
    let cmd = program.commands.find((c) => c.name() === root)!;
    if (sub) cmd = cmd.commands.find((c) => c.name() === sub)!;
    assert.ok(cmd.options.some((o) => o.long === '--rebuild-cache'), path);
  }
  assert.equal(cachePaths()[0], defaultCachePath());
});

test('routing: help, version, unknown command with its nearest names, help <command>, a leading option', () => {
  assert.deepEqual(route([]), { kind: 'help' });
  assert.deepEqual(route(['--help']), { kind: 'help' });
  assert.deepEqual(route(['help']), { kind: 'help' });
  assert.deepEqual(route(['-V']), { kind: 'version' });
  assert.deepEqual(route(['scor', 'x']), { kind: 'usage', message: "unknown command 'scor' (did you mean 'score'?)" });
  const r = route(['help', 'runs']);
  assert.equal(r.kind, 'load');
  assert.deepEqual(r.kind === 'load' && r.args, ['runs', '--help']);
  assert.equal(route(['help', 'nosuch']).kind, 'usage');
  assert.equal(route(['--nosuch']).kind, 'usage');
  const run = route(['run', '--id', 'x']);
  assert.equal(run.kind === 'load' && run.row.module, 'run.ts');
  assert.deepEqual(nearestNames('compre', ['compare', 'compare-runs', 'configs']), ['compare']);
  assert.deepEqual(nearestNames('comp', ['compare', 'compare-runs', 'configs']), ['compare', 'compare-runs']);
  assert.deepEqual(nearestNames('zzzzzz', ['compare', 'configs']), []);
});

test('bin: --help and an unknown command answer without tsx (exit 0 and 2)', () => {
  const bin = join(projectRoot(), 'bin', 'execretrieval.js');
  const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: execretrieval <command>/);
  const bad = spawnSync(process.execPath, [bin, 'nosuch'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  assert.match(bad.stderr, /unknown command 'nosuch'/);
});
