/**
 * The `execretrieval generate` and `audit` commands as a user runs them (child processes), against a real dev
 * server (TEMPORAL_ADDRESS set, unique queue prefix) and the fake provider: registry → benchmark with Gemini,
 * then the audit's Parquet read back with pyarrow (an independent reader); and the `mechanical` generator
 * offline on curated tasks (the pipeline's build stage, runPipeline until build).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { venvPythonExecutable } from '../../activities/python/interpreter.ts';

const run = promisify(execFile);
let t: TestTemporal;
let fake: FakeLlmServer;
before(async () => {
  [t, fake] = await Promise.all([startTestTemporal(), startFakeLlmServer()]);
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

async function cli(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, [join(PROJECT_ROOT, 'bin', 'execretrieval.js'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace, ...env },
    maxBuffer: 16 << 20,
    timeout: 240_000,
  });
}
const readJsonl = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

test('generate registry → generate benchmark (gemini) → audit: files, and Parquet totals equal the ledger', async () => {
  const runDir = join(t.tmp, 'cli-gemini');
  const q = ['--queue-prefix', t.uniqueQueues().prefix];
  const llm = ['--model', 'gemini-2.5-pro', '--reasoning-effort', 'low'];
  fake.script('registry:geometry', ['malformed']); // first answer unusable: retried with the parse error
  const reg = await cli(['generate', 'registry', '--run', runDir, '--provider', 'gemini', ...llm, '--per-domain', '3', '--domains', 'geometry,collections', ...q], fake.env);
  assert.match(reg.stdout, /registry: 6 entries/);
  const registry = readJsonl(join(runDir, 'registry.jsonl'));
  assert.deepEqual(registry.map((e) => e.entry_id), ['e_0001', 'e_0002', 'e_0003', 'e_0004', 'e_0005', 'e_0006']);
  const geo = fake.log.filter((l) => l.subject === 'registry:geometry');
  assert.equal(geo.length, 2);
  assert.match(geo[1].prompt, /could not be used:[\s\S]*(no JSON object|not valid JSON)/);
  // The second domain's prompt listed the names the first domain took.
  const second = fake.log.find((l) => l.subject === 'registry:collections')!;
  assert.ok(second.prompt.includes(registry[0].function_name));

  fake.script(registry[1].function_name, ['gate_fail', 'good']);
  const bench = await cli(['generate', 'benchmark', '--run', runDir, '--generator', 'gemini', ...llm, '--concurrency', '3', ...q], fake.env);
  assert.match(bench.stdout, /accepted 6, rejected 0/);
  assert.equal(readJsonl(join(runDir, 'queries.jsonl')).length, 6);
  assert.equal(readJsonl(join(runDir, 'corpus.jsonl')).length, 30);

  const audit = await cli(['audit', '--run', runDir]);
  assert.match(audit.stdout, /first-attempt validation rate: 83\.3% \(5 of 6\)/);
  // Parquet read by pyarrow, summed there, compared with the ledger summed here.
  const py = venvPythonExecutable();
  const script = 'import sys, json, pyarrow.parquet as pq\ntab = pq.read_table(sys.argv[1])\nt = tab.to_pydict()\nprint(json.dumps({"calls": len(t["entry_id"]), "input": sum(x or 0 for x in t["input_tokens"]), "output": sum(x or 0 for x in t["output_tokens"]), "cost": sum(x or 0 for x in t["cost_usd"]), "types": [str(tab.schema.field(n).type) for n in ("input_tokens", "cost_usd", "entry_id")]}))';
  const out = JSON.parse((await run(py, ['-c', script, join(runDir, 'audit', 'calls.parquet')])).stdout);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  const calls = ledger.calls();
  ledger.close();
  assert.equal(out.calls, fake.log.filter((l) => l.subject === 'registry:geometry' || l.subject === 'registry:collections' || registry.some((e) => e.function_name === l.subject)).length);
  assert.equal(out.calls, calls.length);
  assert.deepEqual(out.types, ['int64', 'double', 'string']);
  assert.equal(out.input, calls.reduce((s, c) => s + (c.input_tokens ?? 0), 0));
  assert.equal(out.output, calls.reduce((s, c) => s + (c.output_tokens ?? 0), 0));
  assert.ok(Math.abs(out.cost - calls.reduce((s, c) => s + (c.cost_usd ?? 0), 0)) < 1e-9);
});

test('mechanical generator, offline, on curated tasks: it is the pipeline\'s build stage (one implementation), and its distractors pass the gate', async () => {
  const runDir = join(t.tmp, 'cli-mechanical');
  const curated = readFileSync(join(PROJECT_ROOT, 'data', 'tasks', 'curated', 'bit_manipulation.jsonl'), 'utf8').trim().split('\n').slice(0, 4);
  const tasksFile = join(t.tmp, 'curated-subset.jsonl');
  writeFileSync(tasksFile, curated.join('\n') + '\n');
  const ids = curated.map((l) => JSON.parse(l).task_id as string);
  // No provider keys at all: the mechanical path must not need them.
  const env = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_API_KEY: '' };
  const r = await cli(['generate', 'benchmark', '--run', runDir, '--generator', 'mechanical', '--tasks', tasksFile, '--queue-prefix', t.uniqueQueues().prefix], env);
  const m = /tasks: 4; accepted (\d+), rejected (\d+)/.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.equal(Number(m[1]) + Number(m[2]), 4);
  const bench = join(runDir, 'benchmark');
  const queries = readJsonl(join(bench, 'queries.jsonl'));
  assert.equal(queries.length, Number(m[1]));
  assert.ok(queries.length >= 1, 'at least one curated task yields a full mechanical entry');
  assert.deepEqual(queries.map((q) => q.metadata.task_id), ids.filter((id) => queries.some((q) => q.metadata.task_id === id)));
  const corpus = readJsonl(join(bench, 'corpus.jsonl'));
  for (const c of corpus.filter((x) => !x.is_canonical)) assert.ok(c.metadata.failing_tests.length >= 1);
  // The run manifest says it ran as runPipeline's build stage, and nothing after it.
  const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
  assert.match(manifest.workflow_id, /^run-cli-mechanical-/);
  assert.deepEqual(Object.keys(manifest.stages), ['build']);
  assert.equal(manifest.settings.until, 'build');
  assert.equal(existsSync(join(runDir, 'ledger.sqlite')), false, 'no generator call to account for');
});
