/**
 * Room left on the file system of the state folder (Temporal's database, the caches). The Temporal dev server does
 * not fail on a full disk: its SQLite writes stall and the command printed nothing for 500 s until it was killed
 * (issue 37). So the CLI checks the room before it starts the server and keeps checking while it runs, and stops
 * with one line naming the folder (DiskFullError, exit 5) when it falls below what a step needs.
 */
import { statfsSync } from 'node:fs';
import { DiskFullError } from '../faults.ts';

/** Below this, a command does not start the dev server (its database and the caches grow by megabytes a run). */
export const START_MIN_FREE_BYTES = 64 * 1024 * 1024;
/** Below this while running, the command stops: the server's next writes would stall. */
export const RUN_MIN_FREE_BYTES = 8 * 1024 * 1024;

/** Bytes an unprivileged writer may still use on `dir`'s file system. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;

/** A DiskFullError naming `dir` when less than `min` bytes are free there, else null. */
export function lowRoom(dir: string, min: number, what: string): DiskFullError | null {
  const free = freeBytes(dir);
  return free < min ? new DiskFullError(`${dir}: ${mb(free)} free, ${what} needs at least ${mb(min)}`) : null;
}

/**
 * Checks `dir` every `everyMs` while a command runs; calls `onLow` once with the DiskFullError when the room falls
 * below RUN_MIN_FREE_BYTES. Returns the stop function (the timer never keeps the process alive).
 */
export function watchRoom(dir: string, onLow: (err: DiskFullError) => void, everyMs = 2_000): () => void {
  const timer = setInterval(() => {
    const low = lowRoom(dir, RUN_MIN_FREE_BYTES, "Temporal's database");
    if (!low) return;
    clearInterval(timer);
    onLow(low);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
