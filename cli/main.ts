import { Command } from 'commander';
import { COMMANDS } from './commands/index.ts';
import { EXIT_CODES, StopError } from '../activities/faults.ts';
import { addRebuildCacheFlag } from './rebuildCache.ts';

export function buildProgram(): Command {
  const program = new Command()
    .name('execretrieval')
    .description(
      'Measure whether code retrievers surface code that works (execution-verified benchmarks)\n' +
        'and code from the right place (repository retrieval evaluation).',
    )
    .version('0.1.0')
    .showHelpAfterError();
  for (const register of COMMANDS) register(program);
  addRebuildCacheFlag(program);
  return program;
}

/**
 * Runs the CLI. A thrown error is printed as one line (`error: ...`) with its exit code (a StopError's, CliError included, else 1; the table is EXIT_CODES);
 * EXECRETRIEVAL_DEBUG=1 prints the stack as well.
 */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    process.stderr.write(`error: ${err.message}\n`);
    if (process.env.EXECRETRIEVAL_DEBUG === '1' && err.stack) process.stderr.write(`${err.stack}\n`);
    process.exitCode = err instanceof StopError ? err.exitCode : EXIT_CODES.failed;
  }
}
