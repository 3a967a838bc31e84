import type { Command } from 'commander';
import { COMMANDS } from './commands/index.ts';
import { addRebuildCacheFlag } from './rebuildCache.ts';
import { addVerbosityFlags } from './verbosity.ts';
import { programShell, reportError } from './shell.ts';

/**
 * The whole program, every command registered (tests run commands in-process through it). bin/execretrieval.js
 * does not use it: it imports only the named command's module (cli/entry.ts).
 */
export function buildProgram(): Command {
  const program = programShell();
  for (const register of COMMANDS) register(program);
  addRebuildCacheFlag(program);
  addVerbosityFlags(program);
  return program;
}

/**
 * Runs the CLI with every command loaded. A thrown error is printed as one line (`error: ...`) with its exit
 * code (a StopError's, CliError included, else 1; commander's usage errors 2; the table is EXIT_CODES);
 * EXECRETRIEVAL_DEBUG=1 prints the stack as well.
 */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    reportError(e);
  }
}
