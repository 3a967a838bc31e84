import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';
import { buildProgram } from '../../cli/main.ts';

/**
 * The CLI in-process (the same commander program bin/execretrieval.js runs): a child process per command
 * costs seconds of startup on a loaded 2-core machine. Output is captured, and the exit code is what the
 * command left in process.exitCode (restored afterwards); one real child process checks the exit status.
 */
export async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const saved = process.exitCode;
  process.exitCode = undefined;
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  try {
    await buildProgram().exitOverride().parseAsync(['node', 'execretrieval', 'repo', ...args]);
    return { code: process.exitCode ?? 0, out: out.join('\n'), err: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
    process.exitCode = saved;
  }
}

export function cliProcess(...args: string[]) {
  const p = spawnSync(process.execPath, [join(projectRoot(), 'bin', 'execretrieval.js'), 'repo', ...args], { cwd: projectRoot(), encoding: 'utf8' });
  return { code: p.status, out: p.stdout, err: p.stderr };
}

