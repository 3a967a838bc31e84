/**
 * The CLI's shared vocabulary: one word for a run (`--run <id>`) on every command that reads one, and the checks
 * that every name a command is given (run, configuration, gate profile) exists *before* any work starts, each
 * failing with exit 2 and a line that names the bad name and the nearest valid ones.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EXIT_CODES } from '../activities/faults.ts';
import { projectRoot, resolveRunDir, runsDir } from '../activities/paths.ts';
import { unknownNameMessage } from './commandTable.js';
import { CliError } from './errors.ts';
import { parseDuration } from '../core/generation/patience.ts';

/** Spellings of the run option older versions took; still accepted, with a one-line note. */
const OLD_RUN_FLAGS = [
  { flag: '--id', key: 'id' },
  { flag: '--run-id', key: 'runId' },
] as const;

/**
 * Adds `--run <id>` (a run id under runs/, or a run directory) and, hidden from help, the old `--id` and
 * `--run-id`. `what` overrides the help text.
 */
export function addRunOption(cmd: Command, what = 'run id (under runs/) or run directory'): Command {
  cmd.option('--run <id>', what);
  for (const o of OLD_RUN_FLAGS) cmd.addOption(new Option(`${o.flag} <id>`, 'deprecated: use --run').hideHelp());
  return cmd;
}

/** Where deprecation notes go (tests replace it). */
export const notes = { write: (line: string) => void process.stderr.write(`${line}\n`) };

/**
 * The run a command was given: `--run`, else an old spelling or the positional argument (each with a one-line
 * deprecation note on stderr); undefined when none was given.
 */
export function givenRun(opts: Record<string, unknown>, positional?: string): string | undefined {
  const run = opts.run as string | undefined;
  const old = OLD_RUN_FLAGS.find((o) => opts[o.key] !== undefined);
  if (run !== undefined && (old || positional !== undefined)) {
    throw new CliError(`give the run once: --run ${run} and ${old ? `${old.flag} ${String(opts[old.key])}` : `'${positional}'`}`, EXIT_CODES.usage);
  }
  if (run !== undefined) return run;
  if (old) {
    notes.write(`note: ${old.flag} is deprecated; use --run ${String(opts[old.key])}`);
    return String(opts[old.key]);
  }
  if (positional !== undefined) {
    notes.write(`note: the run as a positional argument is deprecated; use --run ${positional}`);
    return positional;
  }
  return undefined;
}

/** The run ids under runs/ (for "did you mean"). */
export function knownRuns(): string[] {
  const dir = runsDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/**
 * The directory of an existing run, from `--run` (or its old spellings / the positional): exit 2 naming the
 * run and the nearest existing ones when it is missing or does not exist.
 */
export function existingRunDir(opts: Record<string, unknown>, positional?: string): string {
  const run = givenRun(opts, positional);
  if (run === undefined) throw new CliError('missing --run <id> (a run id under runs/, or a run directory; `execretrieval runs` lists them)', EXIT_CODES.usage);
  return runDirOf(run);
}

/** The nearest folder above `file` that looks like a run (holds benchmark/ or embeddings/), or null. */
function findRunAbove(file: string): string | null {
  for (let d = dirname(file); dirname(d) !== d; d = dirname(d)) {
    if (existsSync(join(d, 'benchmark')) || existsSync(join(d, 'embeddings'))) return d;
  }
  return null;
}

/** The directory of run `run` (an id under runs/ or a path): exit 2 naming it and the nearest existing runs when it does not exist. */
export function runDirOf(run: string): string {
  const dir = resolveRunDir(run);
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    // A report or manifest given for the run (issue 37: it was taken as a run folder and "not scored yet").
    const owner = findRunAbove(dir);
    throw new CliError(`--run ${run} is a file, not a run directory${owner ? `: did you mean --run ${owner}?` : ' (give runs/<id> or the run\'s folder)'}`, EXIT_CODES.usage);
  }
  if (!existsSync(dir)) {
    const runs = knownRuns();
    const hint = runs.length ? unknownNameMessage('run', run, runs).replace(/^unknown run '[^']*' /, '') : '(no runs under runs/ yet)';
    throw new CliError(`run '${run}' not found: neither ${resolve(run)} nor ${join(runsDir(), run)} exists ${hint}`, EXIT_CODES.usage);
  }
  return dir;
}

/** Each of `names` must be in `valid`: else exit 2 naming the first unknown one and its nearest valid names. */
export function checkNames(what: string, names: readonly string[], valid: readonly string[]): void {
  const set = new Set(valid);
  const bad = names.filter((n) => !set.has(n));
  if (!bad.length) return;
  const first = unknownNameMessage(what, bad[0], valid);
  throw new CliError(bad.length > 1 ? `${first}; also unknown: ${bad.slice(1).join(', ')}` : first, EXIT_CODES.usage);
}

/** A comma-separated list (`--configs a,b`), empty items dropped. */
export const commaList = (v: string | undefined): string[] | undefined => v?.split(',').map((s) => s.trim()).filter(Boolean);

/** `--alpha`: the interval and test level, in (0, 1). */
export function parseAlpha(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n < 1)) throw new CliError(`--alpha: expected a level in (0, 1), e.g. 0.05, got '${v}'`, EXIT_CODES.usage);
  return n;
}

/** `--seed`: an integer in [0, 2^32). */
export function parseSeed(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new CliError(`--seed: expected an integer in [0, 2^32), got '${v}'`, EXIT_CODES.usage);
  return n;
}

/** `--replicates`: an integer >= 1. */
export function parseReplicates(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--replicates: expected an integer >= 1, got '${v}'`, EXIT_CODES.usage);
  return n;
}

/**
 * The registry must load without errors (exit 2 otherwise), and every id in `ids` must be a configuration of it (ours, .execretrieval/embedding-configs.json,
 * $EXECRETRIEVAL_EMBEDDING_CONFIGS and `configFiles`) or bm25: checked before any work starts.
 */
export async function checkConfigIds(ids: readonly string[] | undefined, configFiles?: readonly string[]): Promise<void> {
  // The registry is checked even without ids: a malformed registry file would otherwise drop its entries silently.
  const reg = await checkedRegistry(configFiles);
  if (!ids?.length) return;
  checkNames('configuration', ids, [...new Set(['bm25', ...reg.entries.map((e) => e.config.config_id)])]);
}

/** A gate profile name (`--profile`) checked before any work starts. */
export async function checkProfile(name: string | undefined): Promise<void> {
  if (name === undefined) return;
  const { PROFILES } = await import('../core/gate/profiles.ts');
  checkNames('gate profile', [name], Object.keys(PROFILES));
}

/**
 * The registry with `configFiles` merged, or exit 2 when a registry file is missing or malformed (each error on
 * its own line first): a run on a registry that silently lost entries would measure something else.
 */
export async function checkedRegistry(configFiles?: readonly string[]) {
  const { loadRegistry } = await import('../activities/embeddings/configs.ts');
  const reg = loadRegistry({ root: projectRoot(), env: process.env, files: configFiles ? [...configFiles] : undefined });
  if (reg.errors.length) {
    for (const e of reg.errors.slice(1)) notes.write(`config error: ${e}`);
    throw new CliError(`config error: ${reg.errors[0]}${reg.errors.length > 1 ? ` (and ${reg.errors.length - 1} more above)` : ''}`, EXIT_CODES.usage);
  }
  return reg;
}

/**
 * `--source`: mbpp, curated, or an existing path (a release directory or task JSONL); exit 2 otherwise, and
 * exit 1 for an empty file (nothing to build from), before any work.
 */
export async function checkSource(source: string): Promise<void> {
  const { resolveSource } = await import('../activities/benchmark/sources.ts');
  let kind: string;
  try {
    kind = resolveSource(source).kind;
  } catch (e) {
    throw new CliError(`--source: ${(e as Error).message}`, EXIT_CODES.usage);
  }
  if (kind === 'tasks') checkInput(source, '--source');
}

/**
 * An input path given on the command line: exit 2 when it does not exist, exit 1 when it holds nothing to read
 * (an empty file, a directory without .jsonl / .jsonl.gz files).
 */
/**
 * The input exists and holds records: a non-empty file, or a directory with record files (by default *.jsonl /
 * *.jsonl.gz at its top; an importer that reads other files or subfolders says which).
 */
export function checkInput(path: string, what: string, records: { files: RegExp; recursive: boolean; name: string } = JSONL_FILES): void {
  if (!existsSync(path)) throw new CliError(`${what} ${path}: no such file or directory`, EXIT_CODES.usage);
  const st = statSync(path);
  const empty = st.isDirectory() ? !readdirSync(path, { recursive: records.recursive }).some((f) => records.files.test(String(f))) : st.size === 0;
  if (empty) throw new CliError(`${what} ${path}: no records (${st.isDirectory() ? `a directory without ${records.name} files` : 'an empty file'})`, EXIT_CODES.failed);
}
const JSONL_FILES = { files: /\.jsonl(\.gz)?$/, recursive: false, name: '.jsonl / .jsonl.gz' };

/**
 * `--language` (one or more of python, javascript, typescript, go, comma-separated) picks the curated set of each
 * language: the source becomes `curated:<languages>` (activities/benchmark/sources.ts). A language with no row is
 * refused in one line; other sources hold their languages in their records, so it goes with `curated` only.
 */
export async function sourceForLanguage(source: string, language: string | undefined): Promise<string> {
  if (language === undefined) return source;
  const { functionalLanguage } = await import('../core/languages/functional.ts');
  const langs = language.split(',').map((l) => l.trim()).filter(Boolean);
  if (!langs.length) throw new CliError('--language: expected one or more of python, javascript, typescript, go', EXIT_CODES.usage);
  for (const l of langs) {
    try {
      functionalLanguage(l);
    } catch (e) {
      throw new CliError(`--language: ${(e as Error).message}`, EXIT_CODES.usage);
    }
  }
  if (source !== 'curated') throw new CliError(`--language goes with --source curated (the records of ${source} name their own language)`, EXIT_CODES.usage);
  return `curated:${langs.join(',')}`;
}

/** A bad argument: one line, exit code EXIT_CODES.usage (2; 1 means rejected records). */
export function usageError(message: string): InvalidArgumentError {
  const err = new InvalidArgumentError(message);
  err.exitCode = EXIT_CODES.usage;
  return err;
}

/** The longest per-suite timeout the sandbox accepts (infra/runner/sandbox.py refuses longer ones). */
export const MAX_TIMEOUT_S = 3600;

/**
 * `--timeout` (validate, score, run): a finite number of seconds in (0, 3600]; anything else is a one-line usage
 * error before any work (issue 37: `score --timeout -5` ranked everything, then failed 48 s later as a sandbox fault).
 */
export function parseTimeout(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || n > MAX_TIMEOUT_S) {
    throw usageError(`--timeout must be a number of seconds in (0, ${MAX_TIMEOUT_S}], got ${JSON.stringify(v)}`);
  }
  return n;
}

/** A duration option (90s, 10m, 500ms; a bare number is seconds) in milliseconds, > 0; else a one-line usage error. */
export const durationOption = (flag: string) => (v: string): number => {
  const ms = parseDuration(v);
  if (ms === null || ms <= 0) throw new CliError(`${flag}: "${v}" is not a positive duration (e.g. 500ms, 30s, 10m)`, EXIT_CODES.usage);
  return ms;
};
