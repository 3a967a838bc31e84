import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { listServerModels } from '../../activities/embeddings/serverModels.ts';
import { modelRoot } from '../../activities/paths.ts';
import { runServerPlan, withRunServer } from '../../infra/embedServer/forRun.ts';
import { readMatrix } from '../../activities/embeddings/matrix.ts';
import { freshState, startCli, writeSmallSource } from '../temporal/pipelineSupport.ts';

/*
 * `run --configs multilingual-e5-small` with no server set: the run serves e5 itself (the local embedding server on
 * a free port, for this run's in-process workers), through the ordinary openai-compatible path; never for the
 * default set, never when a server is configured, never for a model this checkout cannot serve.
 */

const entries = loadRegistry({ root: process.cwd(), env: {} }).entries;
const penvOf = (env: NodeJS.ProcessEnv) => ({ env, modelRoot: modelRoot() });

test('runServerPlan: only named openai-compatible entries without a server whose model this checkout serves', () => {
  const none = penvOf({});
  assert.equal(runServerPlan(entries, null, none), null, 'the default set is never widened');
  assert.deepEqual(runServerPlan(entries, ['multilingual-e5-small', 'qwen3-embedding-0.6b', 'local-all-minilm-l6-v2', 'bm25'], none), {
    models: ['intfloat/multilingual-e5-small'],
    vars: ['EXECRETRIEVAL_EMBED_BASE_URL'],
    configIds: ['multilingual-e5-small'],
  });
  assert.deepEqual(runServerPlan(entries, ['all-minilm-l6-v2', 'multilingual-e5-small'], none)!.models, ['sentence-transformers/all-MiniLM-L6-v2', 'intfloat/multilingual-e5-small']);
  assert.equal(runServerPlan(entries, ['qwen3-embedding-0.6b'], none), null, 'a model the local server does not hold');
  assert.equal(runServerPlan(entries, ['multilingual-e5-small'], penvOf({ EXECRETRIEVAL_EMBED_BASE_URL: 'http://tei:8080/v1' })), null, "the user's server wins");
});

test('withRunServer: the variable points at a server holding the planned models while fn runs; restored and stopped after', async () => {
  const env: NodeJS.ProcessEnv = { KEEP: '1' };
  const plan = runServerPlan(entries, ['multilingual-e5-small'], penvOf(env))!;
  let url = '';
  const got = await withRunServer(plan, entries, penvOf(env), () => {}, async () => {
    url = env.EXECRETRIEVAL_EMBED_BASE_URL!;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    return listServerModels(url);
  });
  assert.deepEqual(got, { state: 'listed', models: ['intfloat/multilingual-e5-small', 'multilingual-e5-small'] }, 'only what the run named');
  assert.deepEqual(env, { KEEP: '1' });
  assert.equal((await listServerModels(url)).state, 'no_answer', 'stopped after the run');
  // Also when fn throws.
  await assert.rejects(withRunServer(plan, entries, penvOf(env), () => {}, async () => { throw new Error('stage failed'); }), /stage failed/);
  assert.deepEqual(env, { KEEP: '1' });
});

test('run --configs multilingual-e5-small without a server: the run serves it itself and scores it', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'runsrv-'));
  try {
    const src = join(tmp, 'src.jsonl');
    writeSmallSource(src, 2);
    const runDir = join(tmp, 'run');
    const env = { ...process.env, EXECRETRIEVAL_STATE_DIR: freshState(join(tmp, 'state')) } as Record<string, string>;
    delete env.EXECRETRIEVAL_EMBED_BASE_URL;
    const cli = startCli(['run', '--source', src, '--run', runDir, '--configs', 'multilingual-e5-small'], env);
    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
    assert.match(cli.stderr(), /== multilingual-e5-small: no server set, so this run serves intfloat\/multilingual-e5-small itself at http:\/\/127\.0\.0\.1:\d+\/v1/);
    const report = JSON.parse(readFileSync(join(runDir, 'embeddings', 'report.json'), 'utf8'));
    const e5 = report.configs.find((c: { config_id: string }) => c.config_id === 'multilingual-e5-small');
    assert.equal(e5.status, 'ok', JSON.stringify(e5));
    const corpus = readMatrix(join(runDir, 'embeddings', 'multilingual-e5-small', 'corpus.arrow'));
    assert.equal(corpus.dims, 384);
    assert.ok(corpus.ids.length > 0);
    const summary = JSON.parse(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'));
    assert.ok(summary.configs.includes('multilingual-e5-small'), 'scored');
    assert.ok(existsSync(join(runDir, 'rankings', 'multilingual-e5-small.parquet')));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
