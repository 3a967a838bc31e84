/**
 * Faults that stop a step instead of becoming a result (ARCHITECTURE.md, "Faults are outcomes of their own").
 * Each carries the exit code the CLI ends with and a one-line message that names the file and the fix; the CLI
 * prints the message alone (no stack trace), and the generation activities turn them into non-retryable
 * Temporal failures of type `InfraFault` (retrying would meet the same broken file or sandbox).
 */

/**
 * Every exit code the CLI uses, in one table (README "Exit codes"): 0 done and these. A command that also
 * rejects some records but finishes exits `failed`.
 */
export const EXIT_CODES = {
  /** A step failed, a gate missed its threshold, or records were rejected (the rest was still done). */
  failed: 1,
  /** A bad option, a missing or malformed input file, an unknown name: nothing was run. */
  usage: 2,
  /** build / run: no task survived; the message names the stage that rejected them. */
  no_task_accepted: 3,
  /** A generation run ended with entries left to do (provider outage, budget cap, infra fault): rerun resumes. */
  unfinished: 4,
  /** An oracle, cache or sandbox fault persisted after one retry: nothing was scored or judged on it. */
  infra: 5,
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
    readonly detail: string,
  ) {
    super(`${path}: damaged cache (${detail}): run \`${repairCommand(path)}\` (keeps every readable row; the rest is recomputed), or rerun with --rebuild-cache (starts it empty)`);
  }
}

/**
 * A file of the run that no longer matches the sha256 recorded when it was written (a flipped byte in a matrix, an
 * edited benchmark file): reading it on would turn the damage into numbers, so the step stops. `fix` says how to
 * write it again (from its inputs, where they allow it).
 */
export class DamagedRunFileError extends InfraFault {
  override name = 'DamagedRunFileError';
  constructor(
    readonly path: string,
    detail: string,
    fix: string,
  ) {
    super(`${path}: ${detail}: ${fix}`);
  }
}

/** DamagedRunFileError's usual detail: what differs from the hash its writer recorded. */
export const differsFromHash = (what: string) => `${what} differs from the sha256 recorded when it was written (changed or damaged since)`;

/**
 * The file system is full (or over quota) where a step writes: retrying cannot free space, so the step stops at
 * once with one line (exit 5) instead of retrying for minutes; the rerun continues once space is freed.
 */
export class DiskFullError extends InfraFault {
  override name = 'DiskFullError';
  constructor(readonly detail: string) {
    super(`no space left on the device (${detail}): free space there, then rerun the same command (it continues where it stopped)`);
  }
}

/** Node's and SQLite's codes for a full file system or an exhausted quota. */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/**
 * A fault that retrying cannot fix, as the StopError the CLI reports (one line, its exit code), or null for an
 * error worth retrying (a killed worker, a busy database). Ours (StopError: damaged cache, infra faults, user
 * errors) are final by construction; a full disk is recognised by its code wherever it was thrown.
 */
export function fatalFault(err: unknown): StopError | null {
  if (err instanceof StopError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return new DiskFullError(`${code}: ${String((err as Error).message ?? err).split('\n')[0]}`);
  return null;
}

/** SQLite result codes that mean the file itself is broken (not busy, not a bug in our SQL). */
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB|IOERR|CANTOPEN|FORMAT)/;
export function isSqliteDamage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}
