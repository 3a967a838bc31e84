/**
 * `--quiet` and `--verbose` on every command. Quiet: stderr carries only error, warning and rejected-record lines (no progress, no
 * stage lines, no notes); stdout, the command's answer, is unchanged. Verbose: a failure prints its stack trace
 * (as EXECRETRIEVAL_DEBUG=1 does) and progress in logs comes every second instead of every ten.
 */
import type { Command } from 'commander';

export type Level = 'quiet' | 'normal' | 'verbose';
export const verbosity: { level: Level } = { level: 'normal' };

/**
 * Lines a quiet command still writes to stderr: errors and warnings, whoever prints them, and each rejected record
 * (`rejected <file>:<line> ...`): they are why the command exits 1, and a quiet exit 1 must still say why.
 */
const KEEP = /^(error|warning|warn|fatal|rejected)\b/i;

/** Sets the level for this process; quiet filters stderr line by line from here on. */
export function setVerbosity(level: Level): void {
  verbosity.level = level;
  if (level === 'verbose') process.env.EXECRETRIEVAL_DEBUG = '1';
  if (level !== 'quiet') return;
  const write = process.stderr.write.bind(process.stderr);
  let partial = '';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = partial + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    const kept = lines.filter((l) => KEEP.test(l.replace(/^\r?\x1b\[K/, '')));
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (kept.length) return write(kept.join('\n') + '\n', cb);
    cb?.();
    return true;
  }) as typeof process.stderr.write;
}

/** Adds -q/--quiet and -v/--verbose to every command under `program` (nested ones too). */
export function addVerbosityFlags(program: Command): void {
  const walk = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub
        .option('-q, --quiet', 'only errors and warnings on stderr (no progress or stage lines)')
        .option('-v, --verbose', 'stack traces on failure, progress lines every second in logs')
        .hook('preAction', (_self, action) => {
          const o = action.opts<{ quiet?: boolean; verbose?: boolean }>();
          if (o.quiet && o.verbose) return; // both: neither (the last word is not knowable from commander's opts)
          if (o.quiet || o.verbose) setVerbosity(o.quiet ? 'quiet' : 'verbose');
        });
      walk(sub);
    }
  };
  walk(program);
}
