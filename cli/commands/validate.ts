import type { Command } from 'commander';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('Run the five-stage validation gate over tasks (JSONL file or a directory of them)')
    .argument('<tasks>', 'tasks.jsonl or a directory of *.jsonl')
    .option('--profile <name>', 'dataset profile (bounds on distractors and tests)', 'default')
    .option('--json', 'print the full report as JSON')
    .action(async () => {
      throw new Error('not implemented yet');
    });
}
