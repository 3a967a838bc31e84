import { EXIT_CODES, StopError } from '../activities/faults.ts';

/** A failure the user can act on: printed as one line, no stack trace, with its exit code (EXIT_CODES). */
export class CliError extends StopError {
  constructor(message: string, exitCode: number = EXIT_CODES.failed) {
    super(message, exitCode);
    this.name = 'CliError';
  }
}
