/**
 * The fake provider's Gemini batch mode against the real @google/genai SDK (`ai.batches.create/get/list/cancel`):
 * inline requests with their metadata key, pending/running until the delay, inline results in input order with
 * per-request usage equal to what the fake billed and per-request errors, list pages the SDK's pager follows,
 * cancellation and expiry (nothing billed). Then our client (activities/batch/geminiBatch.ts) on the same fake:
 * the round found again through the list by its display name, results mapped back per custom_id.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI } from '@google/genai';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { GEMINI_INLINE_LIMIT_BYTES, geminiBatches, geminiDisplayName } from '../../activities/batch/geminiBatch.ts';
import { batchApiOf } from '../../activities/batch/providerBatches.ts';
import { geminiGenerateParams, providerEnv } from '../../activities/llm/providers.ts';
import { LlmSettings, THINKING_BUDGET } from '../../core/generation/types.ts';

let fake: FakeLlmServer;
let ai: GoogleGenAI;
before(async () => {
  fake = await startFakeLlmServer();
  ai = new GoogleGenAI({ apiKey: 'fake-gemini-key', httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } } });
});
after(() => fake?.close());

const MODEL = 'gemini-2.5-pro';
const request = (key: string, name: string) => ({
  contents: `Function name: ${name}\n`,
  config: { systemInstruction: 'sys', responseMimeType: 'application/json', maxOutputTokens: 4000 },
  metadata: { key },
});

test('gemini: create inline, pending then running until the delay, then inline responses in input order with per-request usage and errors', async () => {
  fake.script('gm_b', ['500']);
  fake.batch.delayMs = 60_000;
  const waiting = await ai.batches.create({ model: MODEL, src: [request('r-a', 'gm_a'), request('r-b', 'gm_b'), request('r-c', 'gm_c')], config: { displayName: 'round-1' } });
  assert.match(waiting.name!, /^batches\//);
  assert.equal(waiting.state, 'JOB_STATE_PENDING');
  assert.equal(waiting.displayName, 'round-1');
  assert.equal((await ai.batches.get({ name: waiting.name! })).state, 'JOB_STATE_RUNNING');
  assert.equal(fake.log.filter((l) => l.batch_id === waiting.name).length, 0, 'nothing answered (or billed) before the batch ends');
  // Cancelled before it ended: nothing billed, no responses.
  await ai.batches.cancel({ name: waiting.name! });
  const cancelled = await ai.batches.get({ name: waiting.name! });
  assert.equal(cancelled.state, 'JOB_STATE_CANCELLED');
  assert.equal(cancelled.dest?.inlinedResponses, undefined);
  assert.equal(fake.log.filter((l) => l.batch_id === waiting.name).length, 0);
  await assert.rejects(ai.batches.cancel({ name: waiting.name! }), /already ended/);

  fake.batch.delayMs = 0;
  fake.script('gm_b', ['500']);
  const b = await ai.batches.create({ model: MODEL, src: [request('r-a', 'gm_a'), request('r-b', 'gm_b'), request('r-c', 'gm_c')], config: { displayName: 'round-2' } });
  const done = await ai.batches.get({ name: b.name! });
  assert.equal(done.state, 'JOB_STATE_SUCCEEDED');
  const rs = done.dest!.inlinedResponses!;
  assert.deepEqual(rs.map((r) => r.metadata?.key), ['r-a', 'r-b', 'r-c'], 'input order, each with its metadata');
  assert.equal(rs[1].response, undefined);
  assert.equal((rs[1].error as { code: number }).code, 500);
  for (const r of [rs[0], rs[2]]) {
    const billed = fake.log.find((x) => x.batch_id === b.name && x.custom_id === r.metadata!.key)!;
    assert.equal(r.response!.usageMetadata!.promptTokenCount, billed.usage!.input_tokens);
    assert.equal(r.response!.usageMetadata!.candidatesTokenCount! + r.response!.usageMetadata!.thoughtsTokenCount!, billed.usage!.output_tokens);
    assert.match(r.response!.candidates![0].content!.parts![0].text!, new RegExp(`def ${billed.subject}\\(`));
  }
  // The system instruction and generation config reached the request as the real-time call sends them.
  const fb = fake.batch.batches.find((x) => x.id === b.name)!;
  assert.equal(fb.requests[0].body.systemInstruction.parts[0].text, 'sys');
  assert.equal(fb.requests[0].body.generationConfig.maxOutputTokens, 4000);
  // Looking again answers nothing twice.
  await ai.batches.get({ name: b.name! });
  assert.equal(fake.log.filter((l) => l.batch_id === b.name).length, 3);
});

test('gemini: list pages the SDK pager follows; refusals; expiry answers nothing', async () => {
  const made: string[] = [];
  for (let i = 0; i < 3; i++) made.push((await ai.batches.create({ model: MODEL, src: [request('x', 'gm_list')], config: { displayName: `list-${i}` } })).name!);
  const names: string[] = [];
  for await (const j of await ai.batches.list({ config: { pageSize: 2 } })) names.push(j.name!);
  assert.deepEqual(names, fake.batch.batches.filter((x) => x.provider === 'gemini').map((x) => x.id), 'every batch, across pages');
  assert.ok(made.every((n) => names.includes(n)));

  await assert.rejects(ai.batches.create({ model: MODEL, src: [request('x', 'gm_r')], config: {} }), (e: any) => e.status === 400 && /display_name/.test(e.message));
  await assert.rejects(ai.batches.create({ model: MODEL, src: [], config: { displayName: 'empty' } }), (e: any) => e.status === 400);
  await assert.rejects(ai.batches.get({ name: 'batches/nope' }), (e: any) => e.status === 404);

  fake.batch.expireAfter = 1;
  try {
    const e = await ai.batches.create({ model: MODEL, src: [request('e1', 'gm_exp1'), request('e2', 'gm_exp2')], config: { displayName: 'exp' } });
    const r = await ai.batches.get({ name: e.name! });
    assert.equal(r.state, 'JOB_STATE_EXPIRED');
    assert.equal(r.dest?.inlinedResponses, undefined);
    assert.equal(fake.log.filter((l) => l.batch_id === e.name).length, 0, 'an expired batch bills nothing');
  } finally {
    fake.batch.expireAfter = null;
  }
});

test('our Gemini client: create with the round key as display name, found again through the list (not an older or other round), results per custom_id with usage and errors', async () => {
  const s = LlmSettings.parse({ provider: 'gemini', model: MODEL, endpoint: 'generateContent', max_output_tokens: 8000, reasoning_effort: 'low' });
  const env = providerEnv('gemini', fake.env);
  const meta = { execretrieval_run: 'run-g', execretrieval_round: 'entry:1', requests_sha256: 'abc' };
  const body = (name: string) => geminiGenerateParams(s, { system: 'sys', user: `Function name: ${name}\n` });
  fake.script('gc_b', ['400']);
  fake.batch.delayMs = 0;
  const notBefore = Date.now() - 1000;
  // Another round's batch first: the display name tells them apart.
  await geminiBatches.create(s, env, [{ custom_id: '1-1', body: body('gc_other') }], { ...meta, execretrieval_round: 'entry:2' });
  const made = await geminiBatches.create(s, env, [{ custom_id: '1-1', body: body('gc_a') }, { custom_id: '1-2', body: body('gc_b') }], meta);
  assert.equal(fake.batch.batches.find((x) => x.id === made.batch_id)!.display_name, geminiDisplayName(meta));
  const found = await geminiBatches.find(s, env, meta, notBefore);
  assert.equal(found?.batch_id, made.batch_id);
  assert.equal(await geminiBatches.find(s, env, { ...meta, execretrieval_round: 'entry:3' }, notBefore), null);
  assert.equal(await geminiBatches.find(s, env, meta, Date.now() + 60_000), null, 'a batch older than the record is not this round');
  const got = await geminiBatches.retrieve(s, env, made.batch_id);
  assert.equal(got.ended, true);
  const results = await geminiBatches.results(s, env, { batch_id: made.batch_id, requests: [{ custom_id: '1-1' }, { custom_id: '1-2' }] });
  const a = results.get('1-1')!;
  assert.ok(a.ok);
  const billed = fake.log.find((x) => x.batch_id === made.batch_id && x.custom_id === '1-1')!;
  assert.deepEqual(a.reply.usage, billed.usage);
  const b = results.get('1-2')!;
  assert.ok(!b.ok);
  assert.equal(b.http_status, 400);
  // The thinking budget went into the batched request as in the real-time one.
  assert.equal(fake.batch.batches.find((x) => x.id === made.batch_id)!.requests[0].body.generationConfig.thinkingConfig.thinkingBudget, THINKING_BUDGET.low);
});

test("a round over Gemini's 20 MiB inline limit is refused before anything is sent (the provider would refuse it on every retry); one under it goes", async () => {
  const s = LlmSettings.parse({ provider: 'gemini', model: MODEL, endpoint: 'generateContent', max_output_tokens: 8000 });
  const env = providerEnv('gemini', fake.env);
  const half = 'x'.repeat(Math.ceil(GEMINI_INLINE_LIMIT_BYTES / 2));
  const big = [1, 2].map((n) => ({ custom_id: `1-${n}`, body: geminiGenerateParams(s, { system: 'sys', user: `Function name: gc_big${n}\n${half}` }) }));
  const creates = fake.batch.calls.create;
  await assert.rejects(geminiBatches.create(s, env, big, { execretrieval_run: 'run-big' }), /2 Gemini requests are 20\.\d MiB inline, over Gemini's 20 MiB limit/);
  assert.throws(() => batchApiOf(s).check!(big), /over Gemini's 20 MiB limit/, 'the check submitRound runs before recording the round');
  assert.equal(fake.batch.calls.create, creates, 'nothing sent');
  const one = big.slice(0, 1);
  batchApiOf(s).check!(one);
  const made = await geminiBatches.create(s, env, one, { execretrieval_run: 'run-big' });
  assert.equal(fake.batch.calls.create, creates + 1);
  assert.ok(made.batch_id.startsWith('batches/'));
});

test('results in a responses file (as Gemini gives large results): the SDK downloads it; our client maps each line by its key, with usage and errors', async () => {
  const s = LlmSettings.parse({ provider: 'gemini', model: MODEL, endpoint: 'generateContent', max_output_tokens: 8000 });
  const env = providerEnv('gemini', fake.env);
  fake.script('gf_b', ['503']);
  fake.batch.geminiResultsAsFile = true;
  try {
    const body = (name: string) => geminiGenerateParams(s, { system: 'sys', user: `Function name: ${name}\n` });
    const made = await geminiBatches.create(s, env, [{ custom_id: '1-1', body: body('gf_a') }, { custom_id: '1-2', body: body('gf_b') }, { custom_id: '1-3', body: body('gf_c') }], { execretrieval_run: 'run-file' });
    const job = await ai.batches.get({ name: made.batch_id });
    assert.equal(job.dest?.inlinedResponses, undefined);
    assert.match(job.dest!.fileName!, /^files\//);
    const downloads = fake.batch.calls.content;
    const results = await geminiBatches.results(s, env, { batch_id: made.batch_id, requests: [{ custom_id: '1-1' }, { custom_id: '1-2' }, { custom_id: '1-3' }] });
    assert.equal(fake.batch.calls.content, downloads + 1, 'the file downloaded once');
    for (const id of ['1-1', '1-3']) {
      const r = results.get(id)!;
      assert.ok(r.ok, id);
      const billed = fake.log.find((x) => x.batch_id === made.batch_id && x.custom_id === id)!;
      assert.deepEqual(r.reply.usage, billed.usage);
      assert.match(r.reply.text, new RegExp(`def ${billed.subject}\\(`));
    }
    const failed = results.get('1-2')!;
    assert.ok(!failed.ok);
    assert.equal(failed.http_status, 503);
    // The download's answer lost: the error is the SDK's, classified retryable (the activity tries again).
    fake.batch.dropNext('content');
    await assert.rejects(geminiBatches.results(s, env, { batch_id: made.batch_id, requests: [{ custom_id: '1-1' }] }), (e: any) => e.retryable === true);
  } finally {
    fake.batch.geminiResultsAsFile = false;
  }
});
