import type { Command } from 'commander';
import { registerValidate } from './validate.ts';

/** Every subcommand registers itself here, one line each. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [registerValidate];
