/**
 * Faults that stop a step instead of becoming a result (ARCHITECTURE.md, "Faults are outcomes of their own").
 * Each carries the exit code the CLI ends with and a one-line message that names the file and the fix; the CLI
 * prints the message alone (no stack trace), and the generation activities turn them into non-retryable
 * Temporal failures of type `InfraFault` (retrying would meet the same broken file or sandbox).
 */

/** Exit codes of a step stopped by a fault (distinct from 1, "something was rejected"). */
export const EXIT_CODES = {
  /** An oracle, cache or sandbox fault persisted after one retry: nothing was scored or judged on it. */
  infra: 5,
  /** A generation run ended with entries left to do (provider outage, budget cap, infra fault): rerun resumes. */
  unfinished: 4,
} as const;

/** A fault the CLI reports as one line and exits with `exitCode`. */
export class StopError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** An execution result that was an infrastructure fault twice in a row (oracle, sandbox or cache). */
export class InfraFault extends StopError {
  override name = 'InfraFault';
  constructor(message: string) {
    super(message, EXIT_CODES.infra);
  }
}

/** The command that rebuilds a damaged cache file, named in every message about one. */
export const repairCommand = (path: string) => `execretrieval cache repair --path ${path}`;

/** A cache file that fails SQLite's own check, or a row in it that cannot be read back. */
export class DamagedCacheError extends InfraFault {
  override name = 'DamagedCacheError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: damaged cache (${detail}): run \`${repairCommand(path)}\` (keeps every readable row; the rest is recomputed)`);
  }
}

/** SQLite result codes that mean the file itself is broken (not busy, not a bug in our SQL). */
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB|IOERR|CANTOPEN|FORMAT)/;
export function isSqliteDamage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}
