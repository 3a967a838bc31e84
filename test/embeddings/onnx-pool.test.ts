import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { equalWidthTasks } from '../../core/embeddings/equalWidth.ts';
import { createLocalOnnxProvider } from '../../activities/embeddings/providers/localOnnx.ts';
import { onnxSessionOptions, onnxWorkerCount } from '../../activities/embeddings/providers/localModel.ts';
import { ProviderUnavailableError } from '../../activities/embeddings/types.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';

// Real weights installed by infra/bootstrap/20-models.mjs (npm test runs bootstrap first).
const modelRoot = join(process.cwd(), '.execretrieval', 'models');
const penv = (env: Record<string, string>) => ({ env, modelRoot });
const config = (id: string) => loadRegistry({ root: process.cwd(), env: {} }).entries.find((e) => e.config.config_id === id)!.config;
const MINILM = config('local-all-minilm-l6-v2');

// Code-like texts of many widths, some cut at the 256-token cap, several per width (so the pool splits groups
// into tasks), in no order.
const TEXTS = Array.from({ length: 48 }, (_, i) => {
  const k = (i * 37) % 48;
  if (k % 7 === 0) return `def f${k}(x):\n    return x ** ${k}\n`.repeat(40);
  return `export function step${k % 5}(items: number[]): number {\n  return items.reduce((a, b) => a + b * ${k % 5}, 0);\n}\n`.repeat(1 + (k % 4)) + ' step'.repeat(k % 3);
});

// Three times over: enough positions (>= 8,192) that a provider with several sessions sends the call to its pool.
const BIG = [...TEXTS, ...TEXTS, ...TEXTS];

/** Read through a function: an assertion that the pool is null would otherwise narrow the type for good. */
const poolSize = (p: { readonly pool: { size: number } | null }) => p.pool?.size ?? 0;
const bits = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

test('equalWidthTasks: rows of one width, at most the budget of positions (at least a row), every index once, costliest first', () => {
  const widths = [10, 30, 10, 30, 10, 200, 30, 10, 500];
  const tasks = equalWidthTasks(widths, 60);
  // Budget 60: width 10 takes 6 rows, width 30 two, widths 200 and 500 one each (a row over budget is still a task).
  assert.deepEqual(tasks, [[8], [5], [1, 3], [0, 2, 4, 7], [6]]);
  assert.deepEqual(tasks.flat().sort((a, b) => a - b), widths.map((_, i) => i));
  for (const t of tasks) assert.equal(new Set(t.map((i) => widths[i])).size, 1);
  assert.deepEqual(equalWidthTasks([], 60), []);
  // An exact multiple splits evenly; ties in cost go wider first, then by first index.
  assert.deepEqual(equalWidthTasks([4, 4, 4, 4, 8, 8], 8), [[4], [5], [0, 1], [2, 3]]);
});

test('EXECRETRIEVAL_ONNX_WORKERS: set is taken as is, unset is one per CPU within a quarter of memory at 256 MB + 3x the model file each; a bad value is one line naming the variable', () => {
  const file = join(modelRoot, 'all-MiniLM-L6-v2', 'onnx', 'model.onnx');
  assert.equal(onnxWorkerCount(penv({ EXECRETRIEVAL_ONNX_WORKERS: '3' }), file), 3);
  assert.equal(onnxWorkerCount(penv({ EXECRETRIEVAL_ONNX_WORKERS: '1' }), file), 1);
  const byMemory = Math.floor(totalmem() / 4 / (256 * 2 ** 20 + 3 * statSync(file).size));
  assert.equal(onnxWorkerCount(penv({}), file), Math.max(1, Math.min(availableParallelism(), byMemory)));
  for (const bad of ['0', 'two', '1.5', '-2']) {
    assert.throws(
      () => onnxWorkerCount(penv({ EXECRETRIEVAL_ONNX_WORKERS: bad }), file),
      (e: unknown) => e instanceof ProviderUnavailableError && /EXECRETRIEVAL_ONNX_WORKERS=".*": want a whole number of sessions, at least 1/.test(e.message) && !e.message.includes('\n'),
    );
  }
  // Several sessions run one thread each unless EXECRETRIEVAL_ONNX_THREADS says otherwise; one session keeps onnxruntime's count.
  assert.equal(onnxSessionOptions(penv({}), 2).intraOpNumThreads, 1);
  assert.equal(onnxSessionOptions(penv({}), 1).intraOpNumThreads, undefined);
  assert.equal(onnxSessionOptions(penv({ EXECRETRIEVAL_ONNX_THREADS: '2' }), 2).intraOpNumThreads, 2);
});

test('MiniLM on 2 and 3 worker sessions gives the in-process session\'s vectors and token count bit for bit; a small call stays in-process', async () => {
  const one = await createLocalOnnxProvider(MINILM, penv({ EXECRETRIEVAL_ONNX_WORKERS: '1' }));
  const want = await one.embed(BIG, 'document');
  assert.equal(one.pool, null, 'one session runs in this process');
  await one.close();
  const widths = one.countTokens!(BIG);
  assert.ok(new Set(widths).size >= 6 && widths.includes(256), `widths ${[...new Set(widths)]}`);
  assert.ok(widths.reduce((a, b) => a + b, 0) >= 8192, 'enough positions for the pool');
  for (const n of [2, 3]) {
    const p = await createLocalOnnxProvider(MINILM, penv({ EXECRETRIEVAL_ONNX_WORKERS: String(n) }));
    try {
      // A few texts: not worth starting workers for (POOL_MIN_POSITIONS), same vectors.
      const small = await p.embed(BIG.slice(0, 5), 'document');
      assert.equal(p.pool, null, `${n} sessions: a small call starts no pool`);
      small.vectors.forEach((v, i) => assert.ok(bits(v).equals(bits(want.vectors[i])), `${n} sessions, small call: text ${i}`));
      const got = await p.embed(BIG, 'document');
      assert.equal(poolSize(p), n, `${n} sessions: the large call ran on the pool`);
      assert.equal(got.tokens, want.tokens, `${n} sessions: tokens`);
      got.vectors.forEach((v, i) => assert.ok(bits(v).equals(bits(want.vectors[i])), `${n} sessions: text ${i}`));
      // Again on the same pool, as the sweep and the index call it.
      const again = await p.embed(BIG.slice(3), 'document');
      again.vectors.forEach((v, i) => assert.ok(bits(v).equals(bits(want.vectors[i + 3])), `${n} sessions, again: text ${i + 3}`));
      assert.deepEqual((await p.embed([], 'document')).vectors, []);
    } finally {
      await p.close();
    }
  }
});

test('mpnet and int8 MiniLM on 2 worker sessions give their in-process vectors bit for bit', async () => {
  // mpnet costs about 8x MiniLM per position: TEXTS and a half (about 9,700 of its positions, over the pool's
  // threshold; the assertion below checks that the pool ran) instead of BIG's 19,500.
  for (const [id, texts] of [['local-all-mpnet-base-v2', [...TEXTS, ...TEXTS.slice(0, 24)]], ['local-all-minilm-l6-v2-int8', BIG]] as const) {
    const one = await createLocalOnnxProvider(config(id), penv({ EXECRETRIEVAL_ONNX_WORKERS: '1' }));
    const want = await one.embed(texts, 'document');
    await one.close();
    const two = await createLocalOnnxProvider(config(id), penv({ EXECRETRIEVAL_ONNX_WORKERS: '2' }));
    try {
      const got = await two.embed(texts, 'document');
      assert.equal(two.pool?.size, 2, `${id}: ran on the pool`);
      got.vectors.forEach((v, i) => assert.ok(bits(v).equals(bits(want.vectors[i])), `${id}: text ${i}`));
    } finally {
      await two.close();
    }
  }
});

test('a worker process killed mid-embedding fails that embedding and every later one with one error naming the model and the worker', async () => {
  const p = await createLocalOnnxProvider(MINILM, penv({ EXECRETRIEVAL_ONNX_WORKERS: '2' }));
  try {
    await p.embed(BIG, 'document'); // starts the pool
    // 240 texts: tens of tasks. With the pool up, embed() sends each worker its first task before it first
    // awaits, so the worker is killed with a task in flight and the rest queued.
    const many = Array.from({ length: 5 }, () => TEXTS).flat();
    const pending = p.embed(many, 'document');
    const [first, second] = p.pool!.pids;
    process.kill(second, 'SIGKILL');
    const dead = /^Error: local-all-minilm-l6-v2: ONNX worker 2 of 2 was killed \(SIGKILL\); \d+ embedding task\(s\) unfinished, no vectors returned \(EXECRETRIEVAL_ONNX_WORKERS=1 embeds in-process\)$/;
    await assert.rejects(pending, dead);
    // The pool is spent: a later call fails at once with the same error, instead of waiting on a worker that is gone.
    await assert.rejects(p.embed(['x'], 'document'), dead);
    await p.close();
    // close() returns once both workers have exited: neither is left running.
    for (const pid of [first, second]) assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} still running`);
  } finally {
    await p.close();
  }
});

test('a worker that cannot load the model fails the provider with the worker\'s reason', async () => {
  const root = mkdtempSync(join(tmpdir(), 'er-onnx-pool-'));
  try {
    const dir = join(root, 'all-MiniLM-L6-v2');
    mkdirSync(join(dir, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(modelRoot, 'all-MiniLM-L6-v2', f), join(dir, f));
    writeFileSync(join(dir, 'onnx', 'model.onnx'), 'not an onnx graph');
    // The tokenizer loads here; the workers load the graph at the first call large enough for them.
    const p = await createLocalOnnxProvider(MINILM, { env: { EXECRETRIEVAL_ONNX_WORKERS: '2' }, modelRoot: root });
    const bad = /^Error: local-all-minilm-l6-v2: ONNX worker [12] of 2 did not load the model: Load model from .*all-MiniLM-L6-v2\/onnx\/model\.onnx failed:Protobuf parsing failed/;
    await assert.rejects(p.embed(BIG, 'document'), bad);
    await assert.rejects(p.embed(BIG, 'document'), bad, 'and again, without starting workers anew');
    await p.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a process that embeds through the pool and never closes it still exits, and its workers with it', async () => {
  const script = `
    import { createLocalOnnxProvider } from './activities/embeddings/providers/localOnnx.ts';
    import { loadRegistry } from './activities/embeddings/configs.ts';
    const config = loadRegistry({ root: process.cwd(), env: {} }).entries.find((e) => e.config.config_id === 'local-all-minilm-l6-v2').config;
    const p = await createLocalOnnxProvider(config, { env: { EXECRETRIEVAL_ONNX_WORKERS: '2' }, modelRoot: ${JSON.stringify(modelRoot)} });
    const out = await p.embed(Array.from({ length: 40 }, (_, i) => 'word '.repeat(300 + i)), 'document');
    console.log(JSON.stringify({ n: out.vectors.length, pids: p.pool.pids }));`;
  // The bound is only there to end a hang: exiting is the condition, checked through the exit status and output.
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.signal, null, `killed by the bound: it did not exit\n${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim()) as { n: number; pids: number[] };
  assert.equal(out.n, 40);
  assert.equal(out.pids.length, 2);
  // Each worker exits on its own when the parent's channel closes: wait for exactly that (each pid gone), bounded.
  for (const pid of out.pids) {
    const until = Date.now() + 60_000;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(pid), false, `worker ${pid} outlived its parent`);
  }
});

/** Running, not a zombie waiting for whoever adopted it to reap it (the state field of /proc/PID/stat on Linux). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}
