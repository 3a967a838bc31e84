#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so there is no build step between an edit and a run.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main(process.argv);
