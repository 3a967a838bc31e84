import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelRoot, projectRoot } from '../../activities/paths.ts';
import { CORPUS, QUERIES } from '../scoring/fixtures/tinyBenchmark.ts';

/**
 * The Python package (python/) as a user gets it: `pip install ./python`, a real model object in hand (the shipped
 * all-MiniLM-L6-v2 ONNX export behind `encode`, run by onnxruntime, test/python/minilm_model.py), evaluated on a
 * run whose built-in local-all-minilm-l6-v2 configuration the CLI's `embed` made. Same model, same texts: the
 * package's configuration must rank, execute and score exactly like the built-in one.
 */
const root = projectRoot();
const venvPython = join(root, '.venv', 'bin', 'python');
const cliEntry = join(root, 'bin', 'execretrieval.js');

describe('Python evaluate(model): a model object scored through the CLI, like the built-in configuration', () => {
  let dir: string;
  let runDir: string;
  // The JSON evaluate_check.py prints (its shape is what the tests below read).
  let out: any;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-py-'));
    // Own caches and dev-server database, the shipped models.
    const state = join(dir, 'state');
    mkdirSync(state);
    symlinkSync(modelRoot(), join(state, 'models'));
    runDir = join(dir, 'tiny');
    mkdirSync(join(runDir, 'benchmark'), { recursive: true });
    writeFileSync(join(runDir, 'benchmark', 'queries.jsonl'), QUERIES.map((q) => JSON.stringify(q)).join('\n') + '\n');
    writeFileSync(join(runDir, 'benchmark', 'corpus.jsonl'), CORPUS.map((c) => JSON.stringify(c)).join('\n') + '\n');
    const env = { ...process.env, EXECRETRIEVAL_STATE_DIR: state, EXECRETRIEVAL_CLI: `${process.execPath} ${cliEntry}` };
    // Installed from the folder as the README says (no build isolation: the venv's setuptools builds it offline),
    // from a copy: setuptools builds in the source folder, and the checkout stays as it is.
    const site = join(dir, 'site');
    cpSync(join(root, 'python'), join(dir, 'python'), { recursive: true });
    execFileSync(venvPython, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--no-build-isolation', '--target', site, join(dir, 'python')], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync(process.execPath, [cliEntry, 'embed', '--run', runDir, '--configs', 'local-all-minilm-l6-v2'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const text = execFileSync(venvPython, [join(root, 'test', 'python', 'evaluate_check.py'), runDir, join(modelRoot(), 'all-MiniLM-L6-v2')], {
      env: { ...env, PYTHONPATH: [site, join(root, 'test', 'python')].join(':') },
      cwd: dir,
      encoding: 'utf8',
    });
    out = JSON.parse(text);
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the headline row of the model equals the built-in configuration\'s, metric by metric', () => {
    const rows = out.headline as Record<string, unknown>[];
    const mine = rows.find((r) => r.config_id === 'py-minilm')!;
    const builtin = rows.find((r) => r.config_id === 'local-all-minilm-l6-v2')!;
    assert.ok(mine && builtin, 'both configurations are in the headline');
    assert.deepEqual(rows.map((r) => r.config_id).sort(), ['bm25', 'local-all-minilm-l6-v2', 'py-minilm']);
    const metrics = Object.keys(builtin).filter((k) => !['rank', 'letter', 'config_id'].includes(k));
    assert.ok(metrics.includes('exec@1') && metrics.includes('ndcg@10') && metrics.includes('deception_rate'));
    for (const m of metrics) assert.deepEqual(mine[m], builtin[m], m);
    // The headline is the mean of the per-query table the package returns (two files the CLI wrote, read apart).
    const perQuery = Object.values(out.per_query['exec@1'] as Record<string, number>);
    assert.equal(perQuery.length, 4);
    assert.equal(mine['exec@1'], perQuery.reduce((a, b) => a + b, 0) / perQuery.length);
  });

  test('same rankings, same per-query table, vectors equal to float32 precision', () => {
    assert.equal(out.rankings_equal, true);
    assert.equal(out.per_query_equal, true);
    assert.ok(out.max_vector_diff < 1e-5, `max |difference| ${out.max_vector_diff}`);
    assert.deepEqual(out.calls, ['encode', 'encode']);
    assert.match(out.report, /tiny\/report\/report\.html$/);
    for (const t of ['report/scores', 'report/pairwise', 'report/leaderboard', 'scoring/executions', 'rankings/py-minilm', 'embeddings/py-minilm/queries']) assert.ok(out.tables.includes(t), t);
  });

  test("BEIR's encode_queries/encode_corpus and sentence-transformers' prompt names are called for their side", () => {
    assert.deepEqual(out.beir, { query_call: 'encode_queries', document_call: 'encode_corpus', calls: ['encode_queries', 'encode', 'encode_corpus', 'encode'], same: true });
    assert.deepEqual(out.prompts, { query_call: 'encode(prompt_name="query")', document_call: 'encode(prompt_name="document")', calls: ['encode[query]', 'encode', 'encode[document]', 'encode'], same: true });
  });

  test('a short answer, a built-in name, an unknown run and a model without encode each fail with one message', () => {
    const e = out.errors;
    assert.equal(e.short.type, 'ValueError');
    assert.match(e.short.message, /returned shape \(3, 2\) for 4 texts/);
    assert.equal(e.registry_name.type, 'CliError');
    assert.equal(e.registry_name.code, 2);
    assert.match(e.registry_name.message, /a registry configuration has this id/);
    assert.equal(e.no_run.type, 'FileNotFoundError');
    assert.match(e.no_run.message, /run 'no-such-run-anywhere' not found/);
    assert.equal(e.no_encode.type, 'TypeError');
    assert.match(e.no_encode.message, /object has no encode method/);
  });
});
