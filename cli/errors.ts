/** Exit codes the CLI documents (README "Exit codes"); 1 is any other failure, or records rejected. */
export const EXIT = {
  /** build / run: no task survived; the message names the stage that rejected them. */
  NO_TASK_ACCEPTED: 3,
} as const;

/** A failure the user can act on: printed as one line, no stack trace, with its exit code. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = 1) {
    super(message);
    this.name = 'CliError';
  }
}
