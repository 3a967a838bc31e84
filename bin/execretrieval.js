#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so there is no build step between an edit and a run.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main(process.argv);
// A failed command has printed its one line and stopped what it started (workers, the dev server); a handle the
// Temporal SDK's native runtime keeps open (and its SIGINT handler, which then has nothing to shut down) must not
// keep the process alive after that: `run` on a damaged cache printed its line and hung for minutes (issue 26).
if (process.exitCode) setTimeout(() => process.exit(), 3_000).unref();
