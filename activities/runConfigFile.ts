import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { RunConfig } from '../schemas/runConfig.ts';

/** Reads and validates a run configuration file; an error names the file and the field. */
export function loadRunConfig(path: string): RunConfig {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Error(err.code === 'ENOENT' ? `${path}: no such file` : `${path}: not valid YAML: ${err.message.split('\n')[0]}`);
  }
  const r = RunConfig.safeParse(raw ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue.path.length ? issue.path.join('.') : (issue as { keys?: string[] }).keys?.join(', ') ?? '(top level)';
    throw new Error(`${path}: ${field}: ${issue.message}`);
  }
  return r.data;
}
