#!/usr/bin/env node
// The front end answers --help, --version and an unknown command from a plain-JS table, without loading tsx,
// commander or any SDK (under 0.1 s); a known command runs through tsx's loader (no build step between an edit
// and a run), importing only that command's module (cli/entry.ts).
import { PROGRAM, route, topLevelHelp } from '../cli/commandTable.js';

const r = route(process.argv.slice(2));
if (r.kind === 'help') process.stdout.write(`${topLevelHelp()}\n`);
else if (r.kind === 'version') process.stdout.write(`${PROGRAM.version}\n`);
else if (r.kind === 'usage') {
  process.stderr.write(`error: ${r.message}\n`);
  process.exitCode = 2;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { runCommand } = await import('../cli/entry.ts');
  await runCommand(r.row, r.args);
}
