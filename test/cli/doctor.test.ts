import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelRoot } from '../../activities/paths.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { startFakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';

function doctor(state: string, extraEnv: Record<string, string>) {
  const env: NodeJS.ProcessEnv = { ...process.env, EXECRETRIEVAL_STATE_DIR: state, ...extraEnv };
  delete env.TEMPORAL_ADDRESS;
  delete env.EXECRETRIEVAL_EMBED_CACHE;
  return spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'doctor', '--json'], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 120_000 });
}

test('doctor: a damaged cache fails with its repair command; keys are reported set, never printed; npm start lists the runnable configurations', () => {
  const state = mkdtempSync(join(tmpdir(), 'doctor-'));
  try {
    mkdirSync(state, { recursive: true });
    symlinkSync(modelRoot(), join(state, 'models'));
    const secret = 'sk-doctor-test-0123456789';
    const ok = doctor(state, { OPENAI_API_KEY: secret });
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(!ok.stdout.includes(secret) && !ok.stderr.includes(secret), 'the key value never appears');
    const r = JSON.parse(ok.stdout) as { checks: { area: string; name: string; status: string; detail: string; fix?: string }[]; npm_start: { configs: string[] } };
    const by = (name: string) => r.checks.find((c) => c.name === name)!;
    assert.equal(by('OPENAI_API_KEY').status, 'ok');
    assert.match(by('OPENAI_API_KEY').detail, /^set \(\d+ embedding configuration/);
    assert.equal(by('python').status, 'ok');
    assert.equal(by('binary').status, 'ok');
    assert.equal(by('layers').area, 'sandbox');
    // The other languages' runners: node where the sandbox's view shows it, the Go toolchain (present in CI).
    assert.match(by('node (javascript, typescript)').detail, /^\/usr\/(local\/)?bin\/node: v\d+/);
    assert.equal(by('go').status, 'ok');
    assert.match(by('go').detail, /^go version go1\.\d+/);
    assert.equal(by('local-all-minilm-l6-v2').status, 'ok');
    assert.ok(r.npm_start.configs.includes('local-all-minilm-l6-v2') && r.npm_start.configs.includes('bm25'));
    assert.ok(r.npm_start.configs.some((c) => c.startsWith('openai-')), 'a hosted configuration with its key set is runnable');

    // A cache file overwritten with garbage: the run that opens it would stop; doctor says so first, with the fix.
    const cache = join(state, 'exec-cache.sqlite');
    writeFileSync(cache, Buffer.alloc(8192, 0x5a));
    const bad = doctor(state, {});
    assert.equal(bad.status, 1, bad.stderr);
    const c = (JSON.parse(bad.stdout).checks as { name: string; status: string; fix?: string }[]).find((x) => x.name === cache)!;
    assert.equal(c.status, 'fail');
    assert.equal(c.fix, `execretrieval cache repair --path ${cache}`);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});

test('doctor: open-weight configurations are runnable only if the server lists their model; a server that does not answer is a warning', async () => {
  const state = mkdtempSync(join(tmpdir(), 'doctor-srv-'));
  const fake = await startFakeEmbeddingServer({ models: ['intfloat/e5-small-v2'] });
  try {
    symlinkSync(modelRoot(), join(state, 'models'));
    const run = async (url: string) => {
      const r = await doctorAsync(state, { EXECRETRIEVAL_EMBED_BASE_URL: url });
      return JSON.parse(r) as { checks: { name: string; status: string; detail: string; fix?: string }[]; npm_start: { configs: string[] } };
    };
    const listed = await run(fake.baseUrls.openai);
    assert.ok(listed.npm_start.configs.includes('e5-small-v2'), 'the listed model runs');
    for (const id of ['qwen3-embedding-0.6b', 'bge-small-en-v1.5', 'multilingual-e5-small']) assert.ok(!listed.npm_start.configs.includes(id), `${id}: not listed, not run`);
    const srv = listed.checks.find((c) => c.name === 'EXECRETRIEVAL_EMBED_BASE_URL')!;
    assert.deepEqual([srv.status, srv.detail], ['ok', `open-weight models at ${fake.baseUrls.openai}; it lists 1: intfloat/e5-small-v2`]);

    const closed = fake.baseUrls.openai;
    await fake.close();
    const dead = (await run(closed)).checks.find((c) => c.name === 'EXECRETRIEVAL_EMBED_BASE_URL')!;
    assert.equal(dead.status, 'warn');
    assert.equal(dead.detail, `${closed} does not answer (GET ${closed}/models: ECONNREFUSED)`);
    assert.match(dead.fix!, /serve-embeddings/);
  } finally {
    await fake.close().catch(() => {});
    rmSync(state, { recursive: true, force: true });
  }
});

/** doctor --json without blocking the event loop (the fake server answers from this process). */
function doctorAsync(state: string, extraEnv: Record<string, string>): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, EXECRETRIEVAL_STATE_DIR: state, ...extraEnv };
  delete env.TEMPORAL_ADDRESS;
  delete env.EXECRETRIEVAL_EMBED_CACHE;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(PROJECT_ROOT, 'bin/execretrieval.js'), 'doctor', '--json'], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => {
      // doctor exits 1 when a check fails (not one this test makes); its JSON is what is checked.
      if (err && !stdout) reject(new Error(`${err.message}: ${stderr}`));
      else resolve(stdout);
    });
  });
}
