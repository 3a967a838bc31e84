/**
 * The fake provider's batch APIs against the real SDKs (`openai` files + batches, `@anthropic-ai/sdk` message
 * batches): what our batch clients rely on — metadata kept, newest-first cursor pages, per-request usage in the
 * output file equal to what the fake billed, HTTP errors in the error file, expiry and cancellation.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';

let fake: FakeLlmServer;
let openai: OpenAI;
let anthropic: Anthropic;
before(async () => {
  fake = await startFakeLlmServer();
  openai = new OpenAI({ apiKey: 'sk-fake', baseURL: fake.env.OPENAI_BASE_URL, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-fake', baseURL: fake.env.ANTHROPIC_BASE_URL, maxRetries: 0 });
});
after(() => fake?.close());

const chatLine = (custom_id: string, name: string) => ({
  custom_id, method: 'POST', url: '/v1/chat/completions',
  body: { model: 'gpt-5.4-mini', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: `Function name: ${name}\n` }], max_completion_tokens: 4000 },
});
const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

async function upload(lines: unknown[], purpose: 'batch' | 'fine-tune' = 'batch') {
  return openai.files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'requests.jsonl'), purpose });
}

async function fileLines(id: string | null | undefined): Promise<any[]> {
  if (!id) return [];
  const text = await (await openai.files.content(id)).text();
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

test('openai: upload, create with metadata, in progress until the delay, then output and error files with per-request usage', async () => {
  fake.script('oa_b', ['500']);
  const file = await upload([chatLine('r-a', 'oa_a'), chatLine('r-b', 'oa_b'), chatLine('r-c', 'oa_c')]);
  assert.equal(file.purpose, 'batch');
  const metadata = { run_id: 'run-1', round: '1', requests_sha256: 'abc' };
  fake.batch.delayMs = 60_000;
  const waiting = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata });
  assert.equal(waiting.status, 'in_progress');
  assert.deepEqual(waiting.metadata, metadata);
  assert.equal(fake.log.filter((l) => l.batch_id === waiting.id).length, 0, 'nothing is answered (or billed) before the batch ends');
  // Cancelled before it ended: nothing billed, every request in the error file as batch_cancelled.
  const cancelled = await openai.batches.cancel(waiting.id);
  assert.match(cancelled.status, /^cancell(ing|ed)$/);
  const again = await openai.batches.retrieve(waiting.id);
  assert.equal(again.status, 'cancelled');
  assert.deepEqual((await fileLines(again.error_file_id)).map((l) => l.error.code), ['batch_cancelled', 'batch_cancelled', 'batch_cancelled']);
  assert.equal(fake.log.filter((l) => l.batch_id === waiting.id).length, 0);

  fake.batch.delayMs = 0;
  const b = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata });
  const done = await openai.batches.retrieve(b.id);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
  const out = await fileLines(done.output_file_id);
  const err = await fileLines(done.error_file_id);
  assert.deepEqual(out.map((l) => l.custom_id).sort(), ['r-a', 'r-c']);
  assert.deepEqual(err.map((l) => [l.custom_id, l.response.status_code]), [['r-b', 500]]);
  // The output file's usage is what the fake billed for that request (the log is the invoice).
  for (const l of out) {
    const billed = fake.log.find((x) => x.batch_id === b.id && x.custom_id === l.custom_id)!;
    assert.equal(l.response.body.usage.prompt_tokens, billed.usage!.input_tokens);
    assert.equal(l.response.body.usage.completion_tokens, billed.usage!.output_tokens);
    assert.match(l.response.body.choices[0].message.content, new RegExp(`def ${billed.subject}\\(`));
  }
  assert.equal(done.usage!.input_tokens, out.reduce((a, l) => a + l.response.body.usage.prompt_tokens, 0));
  // Looking again answers nothing twice.
  await openai.batches.retrieve(b.id);
  assert.equal(fake.log.filter((l) => l.batch_id === b.id).length, 3);
});

test('openai: list is newest first in cursor pages the SDK follows; metadata identifies a batch', async () => {
  fake.batch.delayMs = 0;
  const file = await upload([chatLine('x', 'oa_list')]);
  const made: string[] = [];
  for (let round = 1; round <= 3; round++) {
    made.push((await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { run_id: 'run-list', round: String(round) } })).id);
  }
  const first = await openai.batches.list({ limit: 2 });
  assert.equal(first.data.length, 2);
  assert.equal(first.data[0].id, made[2], 'newest first');
  assert.equal(first.hasNextPage(), true);
  const seen: string[] = [];
  for await (const b of openai.batches.list({ limit: 2 })) if (b.metadata?.run_id === 'run-list') seen.push(b.id);
  assert.deepEqual(seen, [...made].reverse());
});

test('openai: refusals (file purpose, endpoint mismatch, duplicate custom_id, bad metadata) and expiry', async () => {
  const wrong = await upload([chatLine('y', 'oa_ref')], 'fine-tune');
  await assert.rejects(openai.batches.create({ input_file_id: wrong.id, endpoint: '/v1/chat/completions', completion_window: '24h' }), (e: any) => e.status === 400 && /purpose 'batch'/.test(e.message));
  const file = await upload([chatLine('y', 'oa_ref')]);
  await assert.rejects(openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { ['k'.repeat(65)]: 'v' } }), (e: any) => e.status === 400);
  const mismatched = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/responses', completion_window: '24h' });
  assert.equal(mismatched.status, 'failed');
  assert.equal(mismatched.errors!.data![0].code, 'mismatched_endpoint');
  const dup = await openai.batches.create({ input_file_id: (await upload([chatLine('z', 'a1'), chatLine('z', 'a2')])).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  assert.equal(dup.status, 'failed');
  assert.equal(dup.errors!.data![0].code, 'duplicate_custom_id');

  fake.batch.delayMs = 0;
  fake.batch.expireAfter = 1;
  try {
    const b = await openai.batches.create({ input_file_id: (await upload([chatLine('e1', 'oa_exp1'), chatLine('e2', 'oa_exp2')])).id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const r = await openai.batches.retrieve(b.id);
    assert.equal(r.status, 'expired');
    assert.deepEqual((await fileLines(r.output_file_id)).map((l) => l.custom_id), ['e1']);
    assert.deepEqual((await fileLines(r.error_file_id)).map((l) => [l.custom_id, l.error.code]), [['e2', 'batch_expired']]);
    assert.equal(fake.log.filter((l) => l.batch_id === b.id).length, 1, 'an expired request is not billed');
  } finally {
    fake.batch.expireAfter = null;
  }
});

const msgRequest = (custom_id: string, name: string) => ({
  custom_id,
  params: { model: 'claude-sonnet-4-6', max_tokens: 4000, system: 'sys', messages: [{ role: 'user' as const, content: `Function name: ${name}\n` }] },
});

test('anthropic: create, processing until the delay, results JSONL with succeeded / errored per custom_id, list pages, cancel, expiry', async () => {
  await assert.rejects(anthropic.messages.batches.create({ requests: [msgRequest('bad id!', 'an_x')] }), (e: any) => e.status === 400 && /custom_id/.test(e.message));

  fake.batch.delayMs = 60_000;
  const waiting = await anthropic.messages.batches.create({ requests: [msgRequest('w1', 'an_w1')] });
  assert.equal(waiting.processing_status, 'in_progress');
  assert.equal(waiting.results_url, null);
  await anthropic.messages.batches.cancel(waiting.id);
  const canceled = await anthropic.messages.batches.retrieve(waiting.id);
  assert.equal(canceled.processing_status, 'ended');
  assert.equal(canceled.request_counts.canceled, 1);

  fake.batch.delayMs = 0;
  fake.script('an_b', ['500']);
  const b = await anthropic.messages.batches.create({ requests: [msgRequest('a', 'an_a'), msgRequest('b', 'an_b')] });
  const ended = await anthropic.messages.batches.retrieve(b.id);
  assert.equal(ended.processing_status, 'ended');
  assert.deepEqual(ended.request_counts, { processing: 0, succeeded: 1, errored: 1, canceled: 0, expired: 0 });
  const results: Record<string, any> = {};
  for await (const r of await anthropic.messages.batches.results(b.id)) results[r.custom_id] = r.result;
  assert.equal(results.a.type, 'succeeded');
  const billed = fake.log.find((x) => x.batch_id === b.id && x.custom_id === 'a')!;
  assert.deepEqual(results.a.message.usage, { input_tokens: billed.usage!.input_tokens, output_tokens: billed.usage!.output_tokens });
  assert.equal(results.b.type, 'errored');
  assert.equal(results.b.error.error.type, 'api_error');

  fake.batch.expireAfter = 0;
  try {
    const e = await anthropic.messages.batches.create({ requests: [msgRequest('x', 'an_exp')] });
    for await (const r of await anthropic.messages.batches.results(e.id)) assert.equal(r.result.type, 'expired');
    assert.equal(fake.log.filter((l) => l.batch_id === e.id).length, 0);
  } finally {
    fake.batch.expireAfter = null;
  }

  const ids: string[] = [];
  for await (const x of anthropic.messages.batches.list({ limit: 1 })) ids.push(x.id);
  assert.deepEqual(ids, fake.batch.batches.filter((x) => x.provider === 'anthropic').map((x) => x.id).reverse(), 'every batch, newest first, one per page');
});
