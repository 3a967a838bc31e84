/**
 * The batch activities without Temporal, against the fake provider's Batch API through the real `openai` SDK:
 * expired and failed requests become error rows and go into the next round as tries of the same attempt, and
 * after --max-attempts of them the entry ends provider_error; ingestion is idempotent; the budget admits only the
 * requests whose worst case fits; a recorded round is never submitted twice.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { createBatchActivities, type RoundInput } from '../../activities/batch/batchActivities.ts';
import { closeBatchStores, readBatchRows } from '../../activities/batch/store.ts';
import { closeLedgers, ledgerAt } from '../../activities/ledger/ledger.ts';
import { writeEntryResult } from '../../activities/generation/runFiles.ts';
import { writeRegistry } from '../temporal/genSupport.ts';
import { formatBatches, inFlight } from '../../cli/commands/batchStatus.ts';
import { checkBatchesAgainstProvider } from '../../activities/batch/verify.ts';
import Database from 'better-sqlite3';

let fake: FakeLlmServer;
let tmp: string;
before(async () => {
  fake = await startFakeLlmServer();
  tmp = mkdtempSync(join(tmpdir(), 'batch-activities-'));
});
after(async () => {
  closeBatchStores();
  closeLedgers();
  await fake?.close();
  rmSync(tmp, { recursive: true, force: true });
});

function round(runId: string, n: number, over: Partial<RoundInput> = {}): RoundInput {
  const runDir = join(tmp, runId);
  return {
    runId, runDir, round: n, source: { kind: 'registry', path: join(runDir, 'registry.jsonl') },
    settings: { provider: 'openai', model: 'gpt-5.4', endpoint: 'responses', reasoning_effort: 'high', max_output_tokens: 16000 },
    promptId: 'entry.v1', maxAttempts: 2, ...over,
  };
}

async function fullRound(a: ReturnType<typeof createBatchActivities>, input: RoundInput) {
  const sub = await a.submitRound(input);
  if (!sub.batch_id) return { sub, ingest: null };
  assert.equal((await a.pollRound(input)).ended, true);
  return { sub, ingest: await a.ingestRound(input) };
}

test('expired requests: error rows, the same attempt again next round, provider_error after --max-attempts; ingest twice writes once', async () => {
  const a = createBatchActivities({ env: fake.env });
  const r1 = round('expiry', 1);
  writeRegistry(r1.runDir, 3, 'expiring');
  fake.batch.delayMs = 0;
  fake.batch.expireAfter = 1; // of each batch only the first request is answered
  try {
    const first = await fullRound(a, r1);
    assert.deepEqual([first.sub.requests, first.ingest!.answered, first.ingest!.failed], [3, 1, 2]);
    assert.deepEqual(await a.ingestRound(r1), { answered: 0, failed: 0, written: 0 }, 'an ingested batch writes nothing again');
    const second = await fullRound(a, round('expiry', 2));
    assert.equal(second.sub.requests, 2, 'the two expired requests, and not the answered one');
    assert.deepEqual([second.ingest!.answered, second.ingest!.failed], [1, 1]);
    const third = await fullRound(a, round('expiry', 3));
    assert.equal(third.sub.batch_id, null, 'the request that expired twice (--max-attempts 2) is not sent again');
    const calls = ledgerAt(join(r1.runDir, 'ledger.sqlite')).calls('expiry');
    assert.equal(calls.length, 3 + 2);
    assert.ok(calls.every((c) => c.attempt_no === 1), 'failures are tries of the same attempt');
    assert.match(calls.find((c) => c.status === 'error')!.error!, /batch_expired/);
    // Answers not judged yet, and an accepted one whose entry file was never written (killed in between), are pending.
    assert.deepEqual((await a.pendingJudgements({ runDir: r1.runDir, runId: 'expiry' })).map((p) => p.entry_id).sort(), ['e_0001', 'e_0002']);
    ledgerAt(join(r1.runDir, 'ledger.sqlite')).judge({ run_id: 'expiry', phase: 'entry', entry_id: 'e_0001', attempt_no: 1 }, 'accepted', []);
    assert.deepEqual((await a.pendingJudgements({ runDir: r1.runDir, runId: 'expiry' })).map((p) => p.entry_id).sort(), ['e_0001', 'e_0002']);
    writeEntryResult(r1.runDir, { entry_id: 'e_0001', status: 'accepted', task: null, attempts: [], generator: 'openai', finished_at: '2026-12-02T00:00:00Z' });
    assert.deepEqual((await a.pendingJudgements({ runDir: r1.runDir, runId: 'expiry' })).map((p) => p.entry_id), ['e_0002']);
    const tally = await a.finishEntries({ ...round('expiry', 4), finishedAt: '2026-12-02T00:00:00Z', budgetStopped: false });
    // e_0001 accepted (its file), e_0002 answered and not judged here (no gate), e_0003 expired twice.
    assert.deepEqual([tally.accepted, tally.provider_error, tally.unfinished], [1, 1, 1]);
    // Billed: the answered requests only.
    const ids = new Set(readBatchRows(join(r1.runDir, 'ledger.sqlite'), 'expiry').map((b) => b.batch_id));
    assert.equal(fake.log.filter((l) => l.batch_id && ids.has(l.batch_id)).length, calls.filter((c) => c.status === 'ok').length);

    // audit --check-batches: the provider's files again, request by request, against the ledger.
    const ok = await checkBatchesAgainstProvider(r1.runDir, 'expiry', fake.env);
    assert.equal(ok.length, 2);
    assert.deepEqual(ok.flatMap((c) => c.differences), []);
    assert.equal(ok.reduce((s, c) => s + c.answered, 0), 2);
    assert.equal(ok.reduce((s, c) => s + c.input_tokens, 0), calls.reduce((s, c) => s + (c.input_tokens ?? 0), 0));
    // A ledger row that no longer says what the provider billed is named.
    const db = new Database(join(r1.runDir, 'ledger.sqlite'));
    db.prepare(`UPDATE calls SET input_tokens = input_tokens + 1 WHERE run_id='expiry' AND entry_id='e_0001'`).run();
    db.close();
    const bad = (await checkBatchesAgainstProvider(r1.runDir, 'expiry', fake.env)).flatMap((c) => c.differences);
    assert.equal(bad.length, 1);
    assert.match(bad[0], /^1-1 \(e_0001 attempt 1\): provider billed \d+\+\d+ tokens, ledger ok \d+\+\d+/);
  } finally {
    fake.batch.expireAfter = null;
  }
});

test('a recorded round is not submitted again; the budget admits only requests whose worst case fits', async () => {
  const a = createBatchActivities({ env: fake.env });
  const r1 = round('budget', 1);
  writeRegistry(r1.runDir, 5, 'budgeted');
  fake.batch.delayMs = 60_000;
  // One request's worst case at batch prices: prompt bytes + 16,000 output tokens at $5/M ≈ $0.08.
  const sub = await a.submitRound({ ...r1, budget: { max_usd: 0.2 } });
  assert.equal(sub.how, 'created');
  assert.equal(sub.requests, 2);
  assert.equal(sub.budget_refused, 3);
  const again = await a.submitRound({ ...r1, budget: { max_usd: 0.2 } });
  assert.deepEqual([again.how, again.batch_id], ['recorded', sub.batch_id]);
  assert.equal(fake.batch.batches.filter((b) => b.metadata?.execretrieval_run === 'budget').length, 1);
  assert.equal((await a.pollRound(r1)).ended, false);
  // What `runs` and `audit` show: the batch in flight, with its requests and the most they can add.
  const shown = formatBatches(r1.runDir);
  assert.match(shown, /^provider batches: 1, 1 in flight \(2 requests, at most \$0\.\d+ more\)/);
  assert.match(shown, new RegExp(`entry round 1: ${sub.batch_id}  submitted \\(in_progress\\)  2 requests`));
  assert.equal(inFlight(readBatchRows(join(r1.runDir, 'ledger.sqlite'))).length, 1);
  // While it runs its worst case is reserved: the next round admits nothing under the same cap.
  const next = await a.submitRound({ ...round('budget', 2), budget: { max_usd: 0.2 } });
  assert.equal(next.batch_id, null);
  assert.ok(next.budget_refused > 0);
  fake.batch.delayMs = 0;
});
