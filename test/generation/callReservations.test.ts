/**
 * The coordinator's reserve / complete / settle steps of an LLM call (activities/generation/callReservations.ts),
 * without a Temporal server, against the fake provider: a row exists before the request, a retried reservation
 * finds its row, a lost reservation keeps its bound (and the budget counts it), a refusal before sending leaves no
 * row, the budget is checked when reserving, and the workflow's loop gives a lost try's retry a row of its own.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { createCallReservationActivities, type CallTarget, type GenerateOutcome, type Reservation } from '../../activities/generation/callReservations.ts';
import { createLlmActivities } from '../../activities/generation/llmActivities.ts';
import { Ledger, closeLedgers } from '../../activities/ledger/ledger.ts';
import { auditRun } from '../../core/generation/audit.ts';
import { ledgeredCall } from '../../workflows/llmCall.ts';
import { directPorts } from './directGeneration.ts';

let fake: FakeLlmServer;
let dir: string;
before(async () => {
  fake = await startFakeLlmServer();
  dir = mkdtempSync(join(tmpdir(), 'reserve-'));
});
after(async () => {
  closeLedgers();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const coord = createCallReservationActivities();
const settings = { provider: 'anthropic' as const, model: 'claude-sonnet-4-6', endpoint: 'messages', max_output_tokens: 4000 };
const PRICE = { input: 3, output: 15 }; // data/prices.json anthropic/claude-sonnet-4-6, USD per million tokens
const target = (runDir: string, name: string, attemptNo = 1): CallTarget => ({
  runId: 'r', runDir, attemptNo, settings, promptId: 'entry.v1',
  request: { kind: 'entry', entry: { entry_id: `id_${name}`, function_name: name, query: 'Sum a window', domain: 'collections' } },
});
const rows = (runDir: string) => {
  const l = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    return l.calls('r');
  } finally {
    l.close();
  }
};
const reserved = (r: Reservation) => {
  assert.equal(r.kind, 'reserved', JSON.stringify(r));
  return r as Extract<Reservation, { kind: 'reserved' }>;
};
const far = () => Date.now() + 60_000;

test('reserve writes the row before anything is sent; complete stores, prices and judges; the next reserve of the attempt gets the stored answer', async () => {
  const runDir = join(dir, 'complete');
  const t = target(runDir, 'complete_fn');
  const since = fake.log.length;
  const r = reserved(await coord.reserveLlmCall({ ...t, reservation: 'a', waitUntilMs: far() }));
  assert.equal(fake.log.length, since);
  const [row] = rows(runDir);
  assert.deepEqual([row.status, row.try_no, row.prompt_id], ['started', 1, 'entry.v1']);
  assert.ok(row.cost_usd_max! > 0 && row.input_tokens_est! > 0, 'bounds recorded before sending');
  assert.match(r.messages.user, /Function name: complete_fn/);

  // Retried by Temporal after its worker died past the insert: the same token finds the same row.
  assert.equal(reserved(await coord.reserveLlmCall({ ...t, reservation: 'a', waitUntilMs: far() })).callId, r.callId);
  assert.equal(rows(runDir).length, 1);

  const answer = await createLlmActivities({ env: fake.env }).sendLlmRequest({ settings: r.settings, messages: r.messages });
  assert.ok(answer.ok);
  const out = (await coord.completeLlmCall({ ...t, callId: r.callId, answer })) as GenerateOutcome;
  assert.ok(out.ok && out.reused === false);
  const u = fake.log[since].usage!;
  assert.ok(Math.abs(out.cost_usd - (u.input_tokens * PRICE.input + u.output_tokens * PRICE.output) / 1e6) < 1e-12);
  assert.deepEqual(rows(runDir).map((c) => [c.status, c.input_tokens, c.output_tokens]), [['ok', u.input_tokens, u.output_tokens]]);

  const again = await coord.reserveLlmCall({ ...t, reservation: 'b', waitUntilMs: far() });
  assert.equal(again.kind, 'stored');
  assert.equal((again as { outcome: GenerateOutcome }).outcome.reused, true);
  assert.equal(rows(runDir).length, 1, 'a stored answer takes no row');
  assert.equal(fake.log.length, since + 1);
});

test('settle: a lost reservation keeps its bounds and the budget counts them; a completed row is not settled; a release removes an unsent row only', async () => {
  const runDir = join(dir, 'settle');
  const first = reserved(await coord.reserveLlmCall({ ...target(runDir, 'settle_a'), reservation: 's1', waitUntilMs: far() }));
  const bound = rows(runDir)[0].cost_usd_max!;
  assert.equal(await coord.settleLostLlmCall({ runDir, callId: first.callId }), true);
  assert.deepEqual(rows(runDir).map((c) => [c.status, c.outcome, c.cost_usd_max]), [['lost', 'lost', bound]]);
  assert.equal(await coord.settleLostLlmCall({ runDir, callId: first.callId }), false, 'settled once');

  // The retry of that call: a row of its own (try 2), before it sends.
  const retry = reserved(await coord.reserveLlmCall({ ...target(runDir, 'settle_a'), reservation: 's2', waitUntilMs: far() }));
  assert.deepEqual(rows(runDir).map((c) => [c.try_no, c.status]), [[1, 'lost'], [2, 'started']]);
  const answer = await createLlmActivities({ env: fake.env }).sendLlmRequest({ settings: retry.settings, messages: retry.messages });
  await coord.completeLlmCall({ ...target(runDir, 'settle_a'), callId: retry.callId, answer });
  assert.equal(await coord.settleLostLlmCall({ runDir, callId: retry.callId }), false, 'an answered row is never made lost');
  assert.equal(await coord.releaseLlmCall({ runDir, callId: retry.callId }), false, 'nor removed');

  // The lost bound stays spent: a cap of (lost bound + one worst case) - a cent refuses the next call outright.
  const billed = rows(runDir)[1].cost_usd!;
  const cap = billed + bound + bound - 0.01;
  const err = await coord.reserveLlmCall({ ...target(runDir, 'settle_b'), budget: { max_usd: cap }, reservation: 's3', waitUntilMs: far() }).catch((e) => e);
  assert.ok(err instanceof ApplicationFailure && err.type === 'BudgetExceededError', String(err));
  assert.match(err.message, /lost calls at their bound/);
  assert.equal(rows(runDir).length, 2, 'a refused reservation leaves no row');

  const unsent = reserved(await coord.reserveLlmCall({ ...target(runDir, 'settle_c'), reservation: 's4', waitUntilMs: far() }));
  assert.equal(await coord.releaseLlmCall({ runDir, callId: unsent.callId }), true);
  assert.equal(rows(runDir).length, 2);
});

test('the budget is checked when reserving: a call that fits only once a call in flight ends waits for it, and past its deadline is a budget stop', async () => {
  const runDir = join(dir, 'budget');
  const a = reserved(await coord.reserveLlmCall({ ...target(runDir, 'budget_a'), reservation: 'b1', waitUntilMs: far() }));
  const worst = rows(runDir)[0].cost_usd_max!;
  const cap = 1.5 * worst; // one worst case at a time
  const b = { ...target(runDir, 'budget_b'), budget: { max_usd: cap } };
  const t0 = Date.now();
  const wait = await coord.reserveLlmCall({ ...b, reservation: 'b2', waitUntilMs: far() });
  assert.equal(wait.kind, 'wait', 'held by the call in flight: asks again, does not stop the run');
  assert.ok(Date.now() - t0 >= 900, 'it waited its slice first');
  const late = await coord.reserveLlmCall({ ...b, reservation: 'b3', waitUntilMs: Date.now() - 1 }).catch((e) => e);
  assert.ok(late instanceof ApplicationFailure && late.type === 'BudgetExceededError' && late.nonRetryable);
  assert.match(late.message, /reserved by calls in flight kept this call waiting past --provider-patience/);

  const answer = await createLlmActivities({ env: fake.env }).sendLlmRequest({ settings: a.settings, messages: a.messages });
  await coord.completeLlmCall({ ...target(runDir, 'budget_a'), callId: a.callId, answer });
  reserved(await coord.reserveLlmCall({ ...b, reservation: 'b4', waitUntilMs: far() }));
  assert.deepEqual(rows(runDir).map((c) => c.status), ['ok', 'started']);
});

test('no API key on the llm worker: refused before sending, the reservation is released (no row, no request)', async () => {
  const runDir = join(dir, 'nokey');
  const since = fake.log.length;
  const err = await ledgeredCall(directPorts<GenerateOutcome>({ ANTHROPIC_BASE_URL: fake.env.ANTHROPIC_BASE_URL }, target(runDir, 'nokey_fn')), { patienceMs: 60_000, maxLostTries: 8 }).catch((e) => e);
  assert.ok(err instanceof ApplicationFailure && err.type === 'InvalidInputError', String(err));
  assert.match(err.message, /no API key in the environment \(set ANTHROPIC_API_KEY\)/);
  assert.deepEqual(rows(runDir), []);
  assert.equal(fake.log.length, since);
});

test('a try lost with its worker after the request left: settled lost, the retry reserves its own row before it sends; the audit brackets the provider log', async () => {
  const runDir = join(dir, 'lostloop');
  const since = fake.log.length;
  const ports = directPorts<GenerateOutcome>(fake.env, target(runDir, 'lost_loop_fn'));
  let sends = 0;
  const out = await ledgeredCall<GenerateOutcome>({
    ...ports,
    send: async (r) => {
      sends += 1;
      // Its row is there before the request leaves.
      assert.equal(rows(runDir).find((c) => c.try_no === sends)?.status, 'started');
      const sent = await ports.send(r);
      // The first try's worker dies after the provider answered: the answer never reaches the coordinator.
      return sends === 1 ? { kind: 'lost', message: 'activity Heartbeat timeout' } : sent;
    },
  }, { patienceMs: 60_000, maxLostTries: 8 });
  assert.ok(out.ok);
  const calls = rows(runDir);
  assert.deepEqual(calls.map((c) => [c.try_no, c.status]), [[1, 'lost'], [2, 'ok']]);
  const seen = fake.log.slice(since);
  assert.equal(seen.length, calls.length, 'one row per request sent');
  const invoice = seen.reduce((s, l) => s + (l.usage!.input_tokens * PRICE.input + l.usage!.output_tokens * PRICE.output) / 1e6, 0);
  const audit = auditRun(calls);
  assert.equal(audit.totals.lost_calls, 1);
  assert.ok(audit.totals.cost_usd < invoice && invoice <= audit.totals.cost_usd + audit.totals.lost_cost_usd_max + 1e-12, `${audit.totals.cost_usd} < ${invoice} <= + ${audit.totals.lost_cost_usd_max}`);
});

test('every try lost: the attempt ends after the policy\'s cap, every reservation settled lost', async () => {
  const runDir = join(dir, 'alllost');
  const ports = directPorts<GenerateOutcome>(fake.env, target(runDir, 'all_lost_fn'));
  const err = await ledgeredCall<GenerateOutcome>({ ...ports, send: async () => ({ kind: 'lost', message: 'activity StartToClose timeout' }) }, { patienceMs: 60_000, maxLostTries: 3 }).catch((e) => e);
  assert.ok(err instanceof ApplicationFailure && err.type === 'LlmWorkerLost' && err.nonRetryable, String(err));
  assert.match(err.message, /3 tries of this call were lost with their llm worker \(last: activity StartToClose timeout\); rerun to resume/);
  assert.deepEqual(rows(runDir).map((c) => [c.try_no, c.status]), [[1, 'lost'], [2, 'lost'], [3, 'lost']]);
});
