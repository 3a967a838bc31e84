import { Command, CommanderError } from 'commander';
import { EXIT_CODES, StopError } from '../activities/faults.ts';
import { PROGRAM } from './commandTable.js';

/**
 * The top-level commander program without its commands. Commander's own errors (unknown option, missing
 * argument, bad choice) are thrown instead of exiting 1, so `reportError` can give them the table's usage code.
 */
export function programShell(): Command {
  return new Command().name(PROGRAM.name).description(PROGRAM.description).version(PROGRAM.version).showHelpAfterError('(add --help for the options)').exitOverride();
}

/**
 * Ends the CLI on a thrown error: a StopError's (CliError's) exit code, else 1; commander's own usage errors
 * (already printed by commander) exit 2 (help and --version exit 0). One line, no stack unless EXECRETRIEVAL_DEBUG=1.
 */
export function reportError(e: unknown): void {
  if (e instanceof CommanderError) {
    const clean = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help' || e.exitCode === 0;
    process.exitCode = clean ? 0 : e.exitCode === EXIT_CODES.failed ? EXIT_CODES.usage : e.exitCode;
    return;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  process.stderr.write(`error: ${err.message}\n`);
  if (process.env.EXECRETRIEVAL_DEBUG === '1' && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exitCode = err instanceof StopError ? err.exitCode : EXIT_CODES.failed;
}
