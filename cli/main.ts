import { Command } from 'commander';
import { COMMANDS } from './commands/index.ts';

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
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}
