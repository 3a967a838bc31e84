// Every command's usage errors exit 2 (EXIT_CODES.usage) with one line naming what is wrong, before any work
// starts: a table of (arguments, expected line) per command, run in-process through the same lazily loaded
// program bin/execretrieval.js runs (cli/entry.ts), plus real processes for the exit status itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMAND_TABLE, route } from '../../cli/commandTable.js';
import { runCommand } from '../../cli/entry.ts';
import { projectRoot } from '../../activities/paths.ts';
import { EXIT_CODES } from '../../activities/faults.ts';

const tmp = mkdtempSync(join(tmpdir(), 'exit-codes-'));
const emptyRun = join(tmp, 'empty-run');
mkdirSync(emptyRun);
const badRegistry = join(tmp, 'bad-registry.json');
writeFileSync(badRegistry, '{"configs": [{"config_id": 1}]');
// One openai-compatible configuration: a --configs typo of it is answered from the file, so the file was read.
const myRegistry = join(tmp, 'my-registry.json');
writeFileSync(myRegistry, JSON.stringify({ configs: [{ config_id: 'my-server', family: 'x', provider: 'openai-compatible', model: 'm', dimensions: 4, base_url: 'http://127.0.0.1:9/v1' }] }));
const runFileBadRegistry = join(tmp, 'run.yaml');
writeFileSync(runFileBadRegistry, `config_files:\n  - ${badRegistry}\n`);

/** [command line, what the one error line must say]: every command has at least one row. */
const CASES: [string[], RegExp][] = [
  [['run', '--configs', 'nosuch'], /unknown configuration 'nosuch'/],
  [['run', '--configs', 'local-static-6'], /did you mean 'local-static-64'/],
  [['run', '--profile', 'chek'], /unknown gate profile 'chek' \(did you mean 'check'\?\)/],
  [['run', '--source', join(tmp, 'nothing.jsonl')], /--source: .*neither mbpp, curated nor an existing path/],
  [['run', '--seed', '-1'], /--seed/],
  [['run', '--language', 'rust'], /--language: unknown language "rust": the functional benchmark supports python, javascript, typescript, go/],
  [['run', '--source', 'mbpp', '--language', 'go'], /--language goes with --source curated/],
  [['build', '--source', 'curated', '--language', 'cobol', '--out', join(tmp, 'r', 'benchmark')], /--language: unknown language "cobol"/],
  [['run', '--config-file', badRegistry], /config error: .*bad-registry.json/],
  [['run', '--config-file', join(tmp, 'no-registry.json')], /config error: .*no-registry.json/],
  [['run', '--config-file', myRegistry, '--configs', 'my-servr'], /unknown configuration 'my-servr' \(did you mean 'my-server'\?\)/],
  [['run', runFileBadRegistry], /config error: .*bad-registry.json/],
  [['run', '--id', 'a', '--run', 'b'], /give the run once/],
  [['validate'], /missing required argument 'tasks'/],
  [['validate', 'x.jsonl', '--profile', 'nope'], /--profile must be one of/],
  [['cache', 'repair'], /required option '--path <file>' not specified/],
  [['build', '--source', 'curated', '--out', join(tmp, 'r', 'benchmark'), '--profile', 'nope'], /unknown gate profile 'nope'/],
  [['build', '--source', 'curated', '--out', join(tmp, 'r', 'bench')], /--out .*: the benchmark goes in <run dir>\/benchmark/],
  [['import', 'nosuch', 'in.jsonl', '--out', join(tmp, 'o.jsonl')], /unknown format "nosuch"/],
  [['import', 'tasks', join(tmp, 'missing.jsonl'), '--out', join(tmp, 'o.jsonl')], /missing.jsonl: no such file or directory/],
  [['validate', join(tmp, 'missing.jsonl')], /missing.jsonl: no such file or directory/],
  [['import', 'jsonl', join(projectRoot(), 'data', 'samples', 'tasks.jsonl'), '--preset', 'nope', '--out', join(tmp, 'o.jsonl')], /unknown --preset "nope"/],
  [['repo', 'eval', '--index', join(tmp, 'no-index')], /no-index/],
  [['score'], /missing --run <id>/],
  [['score', '--run', 'no-such-run-xyz'], /run 'no-such-run-xyz' not found/],
  [['score', '--run', emptyRun, '--configs', 'nosuch'], /unknown configuration 'nosuch'/],
  [['score', '--run', emptyRun, '--config-file', badRegistry], /config error: .*bad-registry.json/],
  [['report', '--run', 'no-such-run-xyz'], /run 'no-such-run-xyz' not found/],
  [['report', '--run', emptyRun, '--alpha', '2'], /--alpha: expected a level in \(0, 1\)/],
  [['report', '--run', emptyRun, '--config-file', badRegistry], /config error: .*bad-registry.json/],
  [['compare', '--run', 'no-such-run-xyz', 'a', 'b'], /run 'no-such-run-xyz' not found/],
  [['compare', '--run', emptyRun, 'a', 'b'], /pairwise.parquet not found/],
  [['compare-runs', 'no-such-run-xyz', emptyRun], /run 'no-such-run-xyz' not found/],
  [['embed', '--run', 'no-such-run-xyz'], /run 'no-such-run-xyz' not found/],
  [['embed', '--run', emptyRun, '--configs', 'nosuch'], /unknown configuration 'nosuch'/],
  [['similarity', '--config', 'nosuch', 'a', 'b'], /unknown configuration 'nosuch'/],
  [['configs', '--config-file', badRegistry], /config error/],
  [['generate', 'registry', '--run', join(tmp, 'g'), '--provider', 'nope', '--model', 'm'], /unknown provider "nope"/],
  [['generate', 'nosuch'], /unknown command 'nosuch'/],
  [['generate', 'benchmark', '--run', join(tmp, 'g'), '--generator', 'mechanical', '--profile', 'defualt'], /unknown gate profile 'defualt' \(did you mean 'default'\?\)/],
  [['audit', '--run', 'no-such-run-xyz'], /run 'no-such-run-xyz' not found/],
  [['audit', '--run', emptyRun], /neither a generation ledger nor an embedding report/],
  [['ui', '--port', '0'], /--port: expected a TCP port/],
  [['runs', '--bogus'], /unknown option '--bogus'/],
  [['doctor', '--bogus'], /unknown option '--bogus'/],
  [['bootstrap', '--bogus'], /unknown option '--bogus'/],
  [['serve-embeddings', '--port', '-5'], /--port/],
  [['import-rankings', '--run', 'no-such-run-xyz', join(tmp, 'x.trec'), '--name', 'x'], /run 'no-such-run-xyz' not found/],
  [['import-vectors', '--run', emptyRun, join(tmp, 'x.npy'), '--ids', join(tmp, 'x.ids')], /required option '--name <config>' not specified/],
  [['retrieve', '--run', 'no-such-run-xyz', 'http://127.0.0.1:9'], /run 'no-such-run-xyz' not found/],
  [['rerank', '--run', emptyRun, 'nosuch-reranker', '--over', 'bm25'], /unknown reranker "nosuch-reranker"/],
  [['import-rankings', '--run', 'no-such-run-xyz', '--name', 'n', 'x.trec'], /run 'no-such-run-xyz' not found/],
  [['import-vectors', '--run', 'no-such-run-xyz', '--name', 'n', 'x.parquet'], /run 'no-such-run-xyz' not found/],
  [['retrieve', '--run', emptyRun, 'http://127.0.0.1:9'], /a URL endpoint needs --name/],
  [['rerank', '--run', emptyRun, '--over', 'bm25', 'nosuch'], /unknown reranker "nosuch"/],
];

/** Runs one command line in-process; returns the exit code it set and what it wrote to stdout and stderr. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = route(args);
  if (r.kind !== 'load') throw new Error(`not a command: ${args.join(' ')}`);
  const out: string[] = [];
  const err: string[] = [];
  const saved = { code: process.exitCode, err: process.stderr.write, log: console.log, error: console.error };
  process.exitCode = undefined;
  process.stderr.write = ((s: string) => err.push(String(s)) > 0) as typeof process.stderr.write;
  console.log = (...a: unknown[]) => void out.push(`${a.join(' ')}\n`);
  console.error = (...a: unknown[]) => void err.push(`${a.join(' ')}\n`);
  try {
    await runCommand(r.row, r.args);
    return { code: Number(process.exitCode ?? 0), out: out.join(''), err: err.join('') };
  } finally {
    Object.assign(process.stderr, { write: saved.err });
    console.log = saved.log;
    console.error = saved.error;
    process.exitCode = saved.code;
  }
}

test('every command has a usage-error case', () => {
  const covered = new Set(CASES.map(([a]) => a[0]));
  assert.deepEqual(COMMAND_TABLE.map((c) => c.name).filter((n) => !covered.has(n)), []);
});

test('usage errors exit 2 with the line that names the problem, before any work', async () => {
  for (const [args, line] of CASES) {
    const t = Date.now();
    const r = await cli(args);
    assert.equal(r.code, EXIT_CODES.usage, `${args.join(' ')}: exit ${r.code}\n${r.err}`);
    assert.match(r.err, line, args.join(' '));
    const errors = r.err.split('\n').filter((l) => l.startsWith('error:'));
    assert.equal(errors.length, 1, `${args.join(' ')}: one error line\n${r.err}`);
    assert.ok(Date.now() - t < 20_000, `${args.join(' ')} took ${Date.now() - t} ms`);
  }
});

test('old spellings of the run still work, each with one deprecation note', async () => {
  const positional = await cli(['report', 'no-such-run-xyz']);
  assert.match(positional.err, /^note: the run as a positional argument is deprecated; use --run no-such-run-xyz$/m);
  assert.equal(positional.code, EXIT_CODES.usage);
  const id = await cli(['audit', '--id', 'no-such-run-xyz']);
  assert.match(id.err, /^note: --id is deprecated; use --run no-such-run-xyz$/m);
  const old = await cli(['compare', 'no-such-run-xyz', 'a', 'b']);
  assert.match(old.err, /run 'no-such-run-xyz' not found/);
});

test('the process exits 2 for a usage error of a loaded command, 0 for its help', () => {
  const bin = join(projectRoot(), 'bin', 'execretrieval.js');
  const bad = spawnSync(process.execPath, [bin, 'runs', '--bogus'], { encoding: 'utf8' });
  assert.equal(bad.status, EXIT_CODES.usage, bad.stderr);
  const help = spawnSync(process.execPath, [bin, 'help', 'runs'], { encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /Usage: execretrieval runs/);
  rmSync(tmp, { recursive: true, force: true });
});
