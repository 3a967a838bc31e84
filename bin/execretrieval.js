#!/usr/bin/env node
// The front end answers --help (every command's page, from cli/helpPages.json), --version and an unknown command
// from plain JS, without loading tsx, commander or any SDK (under 0.1 s); a known command runs through tsx's
// loader (no build step between an edit and a run), importing only that command's module (cli/entry.ts).
import { readFileSync } from 'node:fs';
import { PROGRAM, helpPageKey, route, topLevelHelp } from '../cli/commandTable.js';

// A reader that stops early (`| head`) closes the pipe: that is the reader's choice, not a failure worth a stack
// trace. What was asked for has been read as far as it was wanted, so exit quietly with success, as `cat` would.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
const r = route(process.argv.slice(2));
const pages = r.kind === 'load' ? JSON.parse(readFileSync(new URL('../cli/helpPages.json', import.meta.url), 'utf8')) : {};
const page = r.kind === 'load' ? helpPageKey(r.args, pages) : null;
if (r.kind === 'help') process.stdout.write(`${topLevelHelp()}\n`);
else if (page !== null) process.stdout.write(pages[page]);
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
// A failed command has printed its one line and stopped what it started (workers, the dev server); a handle the
// Temporal SDK's native runtime keeps open (and its SIGINT handler, which then has nothing to shut down) must not
// keep the process alive after that: `run` on a damaged cache printed its line and hung for minutes (issue 26).
if (process.exitCode) setTimeout(() => process.exit(), 3_000).unref();
