/**
 * The CLI as bin/execretrieval.js runs it once the plain-JS front end (cli/commandTable.js) has found a known
 * command: only that command's module, and with it only its own SDKs, is imported (importing every command's
 * module made `--help` take 9-17 s). cli/main.ts's buildProgram still registers every command, for tests.
 */
import type { Command } from 'commander';
import type { CommandRow } from './commandTable.js';
import { programShell, reportError } from './shell.ts';
import { addRebuildCacheFlag } from './rebuildCache.ts';
import { addVerbosityFlags } from './verbosity.ts';

/** Registers the one command `row` names on a fresh program. */
export async function programFor(row: CommandRow): Promise<Command> {
  const program = programShell();
  const mod = (await import(`./commands/${row.module}`)) as Record<string, (p: Command) => void>;
  mod[row.register](program);
  addRebuildCacheFlag(program);
  addVerbosityFlags(program);
  return program;
}

/** Runs `args` (argv without node and the script; args[0] is row's command) and sets process.exitCode. */
export async function runCommand(row: CommandRow, args: string[]): Promise<void> {
  try {
    await (await programFor(row)).parseAsync(args, { from: 'user' });
  } catch (e) {
    reportError(e);
  }
}
