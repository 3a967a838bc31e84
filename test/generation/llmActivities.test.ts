/**
 * The generation call (coordinator activities + llm activity, the workflow's loop) and the ledger without a Temporal server: a retried attempt reuses the stored response
 * (no second request), a call left `started` by a dead worker becomes `lost`, the budget refuses before any
 * request, and the duplicate-acceptance check really finds a duplicate.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { generateEntryDirect, type DirectEntryInput as GenerateEntryInput } from './directGeneration.ts';
import { Ledger, closeLedgers } from '../../activities/ledger/ledger.ts';

let fake: FakeLlmServer;
let dir: string;
before(async () => {
  fake = await startFakeLlmServer();
  dir = mkdtempSync(join(tmpdir(), 'llm-act-'));
});
after(async () => {
  closeLedgers();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = (runDir: string, name: string, over: Partial<GenerateEntryInput> = {}): GenerateEntryInput => ({
  runId: 'r',
  runDir,
  entry: { entry_id: `id_${name}`, function_name: name, query: 'Sum a window', domain: 'collections' },
  attemptNo: 1,
  settings: { provider: 'anthropic', model: 'claude-sonnet-4-6', endpoint: 'messages', max_output_tokens: 4000 },
  promptId: 'entry.v1',
  ...over,
});

test('a retried attempt reuses the stored response: the provider is asked once', async () => {
  const runDir = join(dir, 'reuse');
  const a = await generateEntryDirect(fake.env, input(runDir, 'reuse_fn'));
  const b = await generateEntryDirect(fake.env, input(runDir, 'reuse_fn'));
  assert.ok(a.ok && b.ok);
  assert.equal(a.reused, false);
  assert.equal(b.reused, true);
  assert.deepEqual(b.usage, a.usage);
  assert.equal(fake.log.filter((l) => l.subject === 'reuse_fn').length, 1);
  // Anthropic at $3 / $15 per M tokens (data/prices.json), from the usage the fake server billed.
  const u = fake.log.find((l) => l.subject === 'reuse_fn')!.usage!;
  assert.ok(Math.abs(a.cost_usd - (u.input_tokens * 3 + u.output_tokens * 15) / 1e6) < 1e-12);
});

test('a call a dead worker left `started` is marked lost when the attempt is retried', async () => {
  const runDir = join(dir, 'lost');
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  ledger.startCall({ run_id: 'r', phase: 'entry', entry_id: 'id_lost_fn', attempt_no: 1, provider: 'anthropic', model: 'claude-sonnet-4-6', endpoint: 'messages', reasoning_effort: null, prompt_id: 'entry.v1', prompt_sha256: 'x', started_at: 't' });
  const r = await generateEntryDirect(fake.env, input(runDir, 'lost_fn'));
  assert.ok(r.ok);
  assert.deepEqual(ledger.calls('r').map((c) => [c.try_no, c.status]), [[1, 'lost'], [2, 'ok']]);
  ledger.close();
});

test('a malformed response is a judged parse_error (not a failure), and the budget refuses before sending', async () => {
  const runDir = join(dir, 'budget');
  fake.script('parse_fn', ['malformed']);
  const r = await generateEntryDirect(fake.env, input(runDir, 'parse_fn'));
  assert.equal(r.ok, false);
  assert.match((r as { error: string }).error, /not valid JSON/);
  const before = fake.log.length;
  const err = await generateEntryDirect(fake.env, input(runDir, 'parse_fn', { attemptNo: 2, budget: { max_usd: r.cost_usd / 2 } })).catch((e) => e);
  assert.ok(err instanceof ApplicationFailure);
  assert.equal(err.type, 'BudgetExceededError');
  assert.equal(err.nonRetryable, true);
  assert.equal(fake.log.length, before);
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  assert.deepEqual(ledger.calls('r').map((c) => c.outcome), ['parse_error']);
  ledger.close();
});

test('duplicateAcceptances finds an entry accepted twice or called after acceptance', () => {
  const ledger = new Ledger(join(dir, 'dup', 'ledger.sqlite'));
  const start = (entry_id: string, attempt_no: number) =>
    ledger.startCall({ run_id: 'r', phase: 'entry', entry_id, attempt_no, provider: 'p', model: 'm', endpoint: 'e', reasoning_effort: null, prompt_id: 'x', prompt_sha256: 'x', started_at: 't' });
  const ok = (id: number) => ledger.finishCall(id, { text: '{}', latency_ms: 1, input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cost_usd: 0, model: 'm' });
  ok(start('clean', 1));
  ledger.judge({ run_id: 'r', phase: 'entry', entry_id: 'clean', attempt_no: 1 }, 'accepted', []);
  assert.deepEqual(ledger.duplicateAcceptances('r'), []);
  ok(start('twice', 1));
  ledger.judge({ run_id: 'r', phase: 'entry', entry_id: 'twice', attempt_no: 1 }, 'accepted', []);
  ok(start('twice', 2));
  ledger.judge({ run_id: 'r', phase: 'entry', entry_id: 'twice', attempt_no: 2 }, 'accepted', []);
  assert.deepEqual(ledger.duplicateAcceptances('r'), [{ entry_id: 'twice', accepted: 2, calls_after: 1 }]);
  ledger.close();
});
