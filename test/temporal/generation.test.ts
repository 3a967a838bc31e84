/**
 * End to end with a real dev server, real SDKs against the fake provider, the real gate and oracle:
 * 20 entries through buildBenchmark, some needing regeneration; the accepted set, the release files and
 * the audit totals are asserted against values computed independently from the fake server's own log.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { benchmarkInput, writeRegistry } from './genSupport.ts';
import { buildBenchmark } from '../../workflows/buildBenchmark.ts';
import { Ledger } from '../../activities/ledger/ledger.ts';
import { auditRun } from '../../core/generation/audit.ts';
import type { EntryResult } from '../../core/generation/types.ts';
import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';

let t: TestTemporal;
let fake: FakeLlmServer;
before(async () => {
  [t, fake] = await Promise.all([startTestTemporal(), startFakeLlmServer()]);
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

const readJsonl = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

test('20 entries: regenerations with feedback, provider retries, one rejection; release files and audit totals', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `run-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 20);
  const name = (i: number) => entries[i - 1].function_name;
  fake.script(name(3), ['malformed', 'good']); // parse error -> accepted at 2
  fake.script(name(5), ['gate_fail', 'good']); // gate rejection -> accepted at 2
  fake.script(name(7), ['429', 'good']); // retried inside attempt 1 by the activity retry policy
  fake.script(name(9), ['500', '500', 'good']);
  fake.script(name(11), ['gate_fail', 'gate_fail', 'gate_fail']); // rejected after 3 attempts
  fake.script(name(13), ['malformed', 'gate_fail', 'good']); // accepted at 3

  const result = await t.client.workflow.execute(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues)],
  });

  assert.equal(result.tally.total, 20);
  assert.equal(result.tally.accepted, 19);
  assert.equal(result.tally.rejected, 1);
  assert.equal(result.tally.pages, 3); // pageSize 8: continued as new twice
  assert.equal(result.finalize!.released_queries, 19);
  assert.deepEqual(result.finalize!.sweeps.cross_canonical.passing, []);
  assert.equal(result.finalize!.sweeps.distractor_sanity.passing_all_own_tests, 0);

  // Release files: valid records, registry order, e_0011 absent, 4 distractors each.
  const queries = readJsonl(join(runDir, 'queries.jsonl')).map((q) => QueryRecord.parse(q));
  const corpus = readJsonl(join(runDir, 'corpus.jsonl')).map((c) => CorpusRecord.parse(c));
  assert.deepEqual(queries.map((q) => q.metadata.entry_id), entries.filter((_, i) => i !== 10).map((e) => e.entry_id));
  assert.equal(queries[0].query_id, 'q_0001');
  assert.equal(corpus.length, 19 * 5);
  assert.deepEqual(queries[0].correct_corpus_ids, ['q_0001_canonical']);
  assert.deepEqual(queries[0].distractor_corpus_ids, ['q_0001_d1', 'q_0001_d2', 'q_0001_d3', 'q_0001_d4']);

  // Attempt histories.
  const hist = (id: string) => JSON.parse(readFileSync(join(runDir, 'entries', `${id}.json`), 'utf8')) as EntryResult;
  assert.deepEqual(hist('e_0013').attempts.map((a) => a.outcome), ['parse_error', 'rejected', 'accepted']);
  assert.deepEqual(hist('e_0011').attempts.map((a) => a.outcome), ['rejected', 'rejected', 'rejected']);
  assert.equal(hist('e_0011').status, 'rejected');
  assert.match(hist('e_0005').attempts[0].reasons.join('\n'), /distractor_execution/);

  // The regeneration prompt carried the gate's reasons / the parse error.
  const prompts = (n: string) => fake.log.filter((l) => l.subject === n && l.status === 200).map((l) => l.prompt);
  assert.match(prompts(name(5))[1], /was rejected for these reasons:[\s\S]*distractor_execution/);
  assert.match(prompts(name(3))[1], /was rejected for these reasons:[\s\S]*not valid JSON/);
  assert.doesNotMatch(prompts(name(5))[0], /was rejected/);

  // Audit totals against the fake server's log (independent of our usage normalisation) and prices.json.
  const prices = JSON.parse(readFileSync('data/prices.json', 'utf8')).models['openai/gpt-5.4'];
  const ok = fake.log.filter((l) => l.usage);
  const expected = {
    calls: fake.log.length, // 200s plus the 429/500s, each a ledger row
    input: ok.reduce((s, l) => s + l.usage!.input_tokens, 0),
    output: ok.reduce((s, l) => s + l.usage!.output_tokens, 0),
    reasoning: ok.reduce((s, l) => s + l.usage!.reasoning_tokens, 0),
  };
  const expectedCost = (expected.input * prices.input + expected.output * prices.output) / 1e6;
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    const calls = ledger.calls(runId);
    const a = auditRun(calls);
    assert.equal(a.totals.calls, expected.calls);
    assert.equal(a.totals.input_tokens, expected.input);
    assert.equal(a.totals.output_tokens, expected.output);
    assert.equal(a.totals.reasoning_tokens, expected.reasoning);
    assert.ok(Math.abs(a.totals.cost_usd - expectedCost) < 1e-9, `${a.totals.cost_usd} vs ${expectedCost}`);
    // By outcome: 3 provider errors (one 429, two 500s).
    assert.equal(a.by_outcome.find((g) => g.key === 'provider_error')?.calls, 3);
    // Attempt 1 judged for all 20; accepted at 1 for all but e_0003, e_0005, e_0011, e_0013.
    assert.equal(a.first_attempt_judged, 20);
    assert.equal(a.first_attempt_validation_rate, 16 / 20);
    // 16 at 1, e_0003 and e_0005 at 2, e_0013 at 3: (16 + 2 + 2 + 3) / 19.
    assert.equal(a.attempts_per_accepted, 23 / 19);
    assert.deepEqual(ledger.duplicateAcceptances(runId), []);
    // 20 entries' calls: 20 first attempts + 1 + 1 + 2 (e_0013) + 2 (e_0011) regenerations + 3 provider errors.
    assert.equal(calls.filter((c) => c.phase === 'entry').length, 20 + 1 + 1 + 2 + 2 + 3);
  } finally {
    ledger.close();
  }

  // Rerunning the same run id skips every finished entry: no request reaches the provider.
  const before = fake.log.length;
  const again = await t.client.workflow.execute(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues)],
  });
  assert.equal(fake.log.length, before);
  assert.equal(again.tally.skipped, 20);
  assert.equal(again.finalize!.released_queries, 19);
});

test('budget cap stops new attempts and a rerun with a higher cap resumes; a 4xx is not retried', async () => {
  const queues = t.uniqueQueues();
  await t.startWorkers({ queues, deps: { env: { ...process.env, ...fake.env } } });
  const runId = `budget-${queues.prefix}`;
  const runDir = join(t.tmp, runId);
  const entries = writeRegistry(runDir, 6, 'budget');
  fake.script(entries[5].function_name, ['400']);
  // A call's worst case (every prompt byte a token + 1,000 output tokens) is about $0.014 at gpt-5.4 prices and
  // a fake answer bills about $0.0055: the cap admits three calls, and the fourth's worst case would pass it.
  const cap = 0.03;
  const small = { kind: 'llm' as const, settings: { provider: 'openai' as const, model: 'gpt-5.4', endpoint: 'responses', reasoning_effort: 'high', max_output_tokens: 1000 }, promptId: 'entry.v1' };
  const first = await t.client.workflow.execute(buildBenchmark, {
    taskQueue: queues.default,
    workflowId: `${runId}/benchmark`,
    args: [benchmarkInput(runId, runDir, queues, { concurrency: 1, budget: { max_usd: cap }, generator: small })],
  });
  assert.equal(first.tally.budget_stopped, true);
  assert.ok(first.tally.accepted >= 1 && first.tally.budget_exhausted === 1, JSON.stringify(first.tally));
  const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
  try {
    const calls = ledger.calls(runId);
    const spent = calls.reduce((s, c) => s + (c.cost_usd ?? 0), 0);
    // The cap is never passed: a call is sent only if spend + its worst case fits, and the next one's did not.
    const bounds = calls.map((c) => c.cost_usd_max!);
    for (const c of calls) assert.ok(c.cost_usd! <= c.cost_usd_max!, `billed ${c.cost_usd} within its bound ${c.cost_usd_max}`);
    assert.ok(spent <= cap && spent + Math.min(...bounds) > cap - 1e-4, `spent ${spent}, bounds ${bounds}`);
    assert.equal(calls.length, first.tally.accepted);
    assert.equal(first.finalize!.released_queries, first.tally.accepted); // what was accepted is written anyway
    const acceptedFirst = first.tally.accepted;
    const seenBefore = fake.log.length;

    const second = await t.client.workflow.execute(buildBenchmark, {
      taskQueue: queues.default,
      workflowId: `${runId}/benchmark`,
      args: [benchmarkInput(runId, runDir, queues, { concurrency: 1, budget: { max_usd: 10 }, generator: small })],
    });
    assert.equal(second.tally.skipped, acceptedFirst);
    assert.equal(second.tally.accepted, 5);
    assert.equal(second.tally.provider_error, 1);
    assert.equal(second.finalize!.released_queries, 5);
    // Only the unfinished entries reached the provider, once each (the 400 was not retried).
    assert.equal(fake.log.length - seenBefore, 6 - acceptedFirst);
    const bad = ledger.calls(runId).filter((c) => c.entry_id === entries[5].entry_id);
    assert.deepEqual(bad.map((c) => [c.status, c.http_status]), [['error', 400]]);
    const hist = JSON.parse(readFileSync(join(runDir, 'entries', `${entries[5].entry_id}.json`), 'utf8')) as EntryResult;
    assert.equal(hist.status, 'provider_error');
    assert.match(hist.attempts.at(-1)!.reasons[0], /HTTP 400, not retried/);
    assert.deepEqual(ledger.duplicateAcceptances(runId), []);
  } finally {
    ledger.close();
  }
});
