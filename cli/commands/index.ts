import type { Command } from 'commander';
import { registerCache } from './cache.ts';
import { registerValidate } from './validate.ts';
import { registerRepo } from './repo.ts';
import { registerScore } from './score.ts';
import { registerReport } from './report.ts';
import { registerCompare } from './compare.ts';

/** Every subcommand registers itself here, one line each. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerValidate,
  registerCache,
  registerRepo,
  registerScore, registerReport, registerCompare,
];
