import type { Command } from 'commander';
import { registerCache } from './cache.ts';
import { registerValidate } from './validate.ts';

/** Every subcommand registers itself here, one line each. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerValidate,
  registerCache,
];
