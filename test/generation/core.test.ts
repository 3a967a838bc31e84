import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTemplate } from '../../core/generation/render.ts';
import { extractJsonObject, parseEntryResponse, parseRegistryResponse } from '../../core/generation/parse.ts';
import { assignEntryIds, contentWords, dedupRegistry, jaccard } from '../../core/generation/dedup.ts';
import { callBound, callCostUsd, PriceTable } from '../../core/generation/cost.ts';
import { parseDuration } from '../../core/generation/patience.ts';
import { outputAllowance } from '../../activities/llm/providers.ts';
import { buildEntryPrompt, formatReasons } from '../../core/generation/prompts.ts';
import { auditRun } from '../../core/generation/audit.ts';
import { DEFAULT_REPLY_TOKENS, LlmSettings } from '../../core/generation/types.ts';
import type { LedgerCall } from '../../core/generation/ledgerTypes.ts';
import { loadPriceTable, loadPromptSet } from '../../activities/generation/files.ts';

test('renderTemplate fills placeholders and refuses holes and stray values', () => {
  assert.equal(renderTemplate('a {{x}} b {{ y }}', { x: 1, y: 'z' }), 'a 1 b z');
  assert.throws(() => renderTemplate('{{x}} {{y}}', { x: 1 }), /\{\{y\}\} has no value/);
  assert.throws(() => renderTemplate('{{x}}', { x: 1, z: 2 }), /it does not have: z/);
});

test('extractJsonObject takes the object out of fences and prose, and reports bad JSON', () => {
  assert.deepEqual(extractJsonObject('Sure!\n```json\n{"a": [1]}\n```\nDone.'), { ok: true, value: { a: [1] } });
  assert.deepEqual(extractJsonObject('x {"a": 2} y'), { ok: true, value: { a: 2 } });
  const bad = extractJsonObject('{"a": [1, 2');
  assert.equal(bad.ok, false);
  assert.match((bad as { error: string }).error, /no JSON object|not valid JSON/);
  const trunc = extractJsonObject('{"a": [1, 2}');
  assert.match((trunc as { error: string }).error, /not valid JSON/);
});

test('parseEntryResponse maps to a Task and names the failing field', () => {
  const entry = { entry_id: 'e_0001', function_name: 'f', query: 'q', domain: 'd' };
  const ok = parseEntryResponse(JSON.stringify({ canonical: 'def f(): pass', tests: ['assert f() is None'], distractors: [{ code: 'c', bug_type: 'off_by_one', bug_description: 'b' }] }), entry);
  assert.ok(ok.ok);
  assert.equal(ok.value.task_id, 'e_0001');
  assert.deepEqual(ok.value.tests, { kind: 'asserts', tests: ['assert f() is None'] });
  const bad = parseEntryResponse(JSON.stringify({ canonical: 'x', tests: 'assert 1', distractors: [] }), entry);
  assert.equal(bad.ok, false);
  assert.match((bad as { error: string }).error, /tests:/);
});

test('parseRegistryResponse relabels the domain and trims', () => {
  const r = parseRegistryResponse('{"entries":[{"function_name":" a ","query":" q ","domain":"other"}]}', 'geometry');
  assert.deepEqual(r, { ok: true, value: [{ function_name: 'a', query: 'q', domain: 'geometry' }] });
});

test('jaccard on hand-worked sets', () => {
  // {a,b,c} vs {b,c,d}: intersection 2, union 4.
  assert.equal(jaccard(new Set(['a', 'b', 'c']), new Set(['b', 'c', 'd'])), 0.5);
  assert.equal(jaccard(new Set(), new Set()), 0);
  // Stop words and case are dropped: "Return the sum of a list" -> {sum}.
  assert.deepEqual([...contentWords('Return the SUM of a list')], ['sum']);
});

test('dedupRegistry drops invalid names, exact (case-insensitive) names and near-duplicate queries, first wins', () => {
  const r = dedupRegistry([
    { function_name: 'reverse_words', query: 'Reverse the order of words in a sentence', domain: 'string_processing' },
    { function_name: 'Reverse_Words', query: 'Something else entirely different here', domain: 'collections' },
    { function_name: 'flip_words', query: 'reverse the ORDER of the words in a sentence', domain: 'string_processing' },
    { function_name: 'class', query: 'keyword name', domain: 'd' },
    { function_name: '2bad', query: 'bad identifier', domain: 'd' },
    { function_name: 'count_vowels', query: 'Count vowels in a word', domain: 'string_processing' },
  ]);
  assert.deepEqual(r.kept.map((k) => k.function_name), ['reverse_words', 'count_vowels']);
  assert.deepEqual(
    r.dropped.map((d) => [d.function_name, d.reason, d.duplicate_of]),
    [
      ['Reverse_Words', 'duplicate_name', 'reverse_words'],
      // {reverse, order, words, sentence} both: similarity 1.
      ['flip_words', 'near_duplicate_query', 'reverse_words'],
      ['class', 'invalid_name', null],
      ['2bad', 'invalid_name', null],
    ],
  );
  assert.deepEqual(assignEntryIds(r.kept, 7).map((e) => e.entry_id), ['e_0008', 'e_0009']);
});

test('callCostUsd: hand-worked cost, and a missing price is an error naming the key', () => {
  const table = PriceTable.parse({ version: 't', currency: 'USD', models: { 'openai/m': { input: 2, output: 8 } } });
  // 1,000 input × $2/M + 500 output × $8/M = 0.002 + 0.004 = 0.006
  assert.equal(callCostUsd(table, 'openai', 'm', { input_tokens: 1000, output_tokens: 500, reasoning_tokens: 100 }), 0.006);
  assert.throws(() => callCostUsd(table, 'openai', 'x', { input_tokens: 1, output_tokens: 1, reasoning_tokens: 0 }), /openai\/x/);
  // The shipped table parses.
  assert.ok(Object.keys(loadPriceTable().models).length > 0);
});

test('the locked entry prompt carries the paper constraints and the feedback on regeneration', () => {
  const set = loadPromptSet('entry.v1');
  const entry = { entry_id: 'e', function_name: 'lowest_set_bit', query: 'Return the lowest set bit', domain: 'bit_manipulation' };
  const first = buildEntryPrompt(set, entry);
  for (const must of ['off_by_one', 'swap_arguments', 'off_by_one_boundary', 'wrong_semantics', 'Assert-only', 'wrong output, not crash', 'Function name: lowest_set_bit']) {
    assert.ok(first.user.includes(must), must);
  }
  assert.ok(!first.user.includes('rejected'));
  const again = buildEntryPrompt(set, entry, { previous_attempt: 1, reasons: ['stage 4: distractors[3] passes every test'] });
  assert.ok(again.user.startsWith(first.user));
  assert.match(again.user, /attempt 1\) was rejected[\s\S]*- stage 4: distractors\[3\] passes every test/);
  assert.match(formatReasons(Array.from({ length: 15 }, (_, i) => `r${i}`)), /and 3 more$/);
});

const call = (p: Partial<LedgerCall>): LedgerCall => ({
  run_id: 'r', phase: 'entry', entry_id: 'e1', attempt_no: 1, try_no: 1, status: 'ok', http_status: null, error: null,
  provider: 'openai', model: 'm', endpoint: 'responses', reasoning_effort: 'high', prompt_id: 'entry.v1', prompt_sha256: 'x',
  started_at: 't', latency_ms: 1, input_tokens: 100, output_tokens: 50, reasoning_tokens: 10, cost_usd: 0.01, input_tokens_est: 90, cost_usd_max: 0.2, outcome: 'accepted', reasons: [],
  ...p,
});

test('auditRun: totals, groups, attempts per accepted entry and first-attempt rate on a hand-worked ledger', () => {
  const a = auditRun([
    call({ entry_id: 'e1' }), // accepted at 1
    call({ entry_id: 'e2', outcome: 'parse_error' }),
    call({ entry_id: 'e2', attempt_no: 2, status: 'error', outcome: 'provider_error', input_tokens: null, output_tokens: null, reasoning_tokens: null, cost_usd: null }),
    call({ entry_id: 'e2', attempt_no: 2, try_no: 2, outcome: 'rejected' }),
    call({ entry_id: 'e2', attempt_no: 3, model: 'm2', outcome: 'accepted', cost_usd: 0.03 }), // accepted at 3
    call({ entry_id: 'e3', outcome: 'rejected' }), // never accepted
    call({ phase: 'registry', entry_id: 'registry:geometry', outcome: null, cost_usd: 0.005 }),
  ]);
  // 7 calls; tokens on 6 of them: input 600, output 300, reasoning 60; cost 0.01×4 + 0.03 + 0.005 = 0.075.
  assert.equal(a.totals.calls, 7);
  assert.equal(a.totals.input_tokens, 600);
  assert.equal(a.totals.output_tokens, 300);
  assert.equal(a.totals.reasoning_tokens, 60);
  assert.ok(Math.abs(a.totals.cost_usd - 0.075) < 1e-12);
  assert.equal(a.accepted_entries, 2);
  assert.equal(a.attempts_per_accepted, 2); // (1 + 3) / 2
  // Attempt 1 judged for e1, e2, e3; accepted only for e1.
  assert.equal(a.first_attempt_judged, 3);
  assert.equal(a.first_attempt_accepted, 1);
  assert.equal(a.first_attempt_validation_rate, 1 / 3);
  assert.deepEqual(a.entries.map((e) => [e.entry_id, e.attempts, e.final_outcome]), [['e1', 1, 'accepted'], ['e2', 3, 'accepted'], ['e3', 1, 'rejected']]);
  assert.deepEqual(a.by_model.map((g) => [g.key, g.calls]), [['openai/m', 6], ['openai/m2', 1]]);
  assert.deepEqual(a.by_outcome.map((g) => [g.key, g.calls]), [['accepted', 2], ['parse_error', 1], ['pending', 1], ['provider_error', 1], ['rejected', 2]]);
});

test('parseDuration: bare seconds and ms/s/m/h suffixes; garbage is null', () => {
  assert.deepEqual(['90', '90s', '1.5s', '10m', '1h', '1500ms', ' 2 m '].map(parseDuration), [90_000, 90_000, 1500, 600_000, 3_600_000, 1500, 120_000]);
  assert.deepEqual(['', 'ten', '5d', '-1s'].map(parseDuration), [null, null, null, null]);
});

test('callBound: estimate chars/4, worst case every byte a token + 64 framing tokens + the output allowance', () => {
  const table = { version: 't', currency: 'USD' as const, models: { 'p/m': { input: 2, output: 10 } } };
  // 1,000 chars of which 100 are 'é' (2 bytes each): 1,100 bytes.
  const b = callBound(table, 'p', 'm', { chars: 1000, bytes: 1100 }, 2000);
  assert.equal(b.input_tokens_est, 250);
  assert.equal(b.tokens_max, 1100 + 64 + 2000);
  assert.ok(Math.abs(b.cost_usd_max - ((1164 * 2 + 2000 * 10) / 1e6)) < 1e-15);
  const s = (provider: 'openai' | 'anthropic' | 'gemini', reasoning_effort?: string) => ({ provider, model: 'x', endpoint: 'e', reasoning_effort, max_output_tokens: 8000 });
  assert.equal(outputAllowance(s('openai', 'high')), 8000); // reasoning counts inside max_output_tokens
  assert.equal(outputAllowance(s('anthropic', 'high')), 16_000 + 4096); // max_tokens raised above the thinking budget
  assert.equal(outputAllowance(s('anthropic')), 8000);
  assert.equal(outputAllowance(s('gemini', 'low')), 8000 + 2048); // thinking counted on top, to stay an upper bound
});

test('lost-call bound: input exact from an answered call with the identical prompt (same model), output at the stated cap; otherwise the recorded byte bound', () => {
  const prices = { version: 't', currency: 'USD' as const, models: { 'openai/m': { input: 2, output: 10 } } };
  const lost = (p: Partial<LedgerCall>) =>
    call({ status: 'lost', outcome: 'lost', input_tokens: null, output_tokens: null, reasoning_tokens: null, cost_usd: null, input_tokens_est: 300, input_tokens_max: 1264, output_tokens_max: 500, cost_usd_max: (1264 * 2 + 500 * 10) / 1e6, ...p });
  const a = auditRun(
    [
      lost({ entry_id: 'e1', prompt_sha256: 'p1' }),
      call({ entry_id: 'e1', try_no: 2, prompt_sha256: 'p1', input_tokens: 310 }), // the same prompt answered: 310 tokens
      lost({ entry_id: 'e2', prompt_sha256: 'p2' }), // no twin: the recorded bound stands
      lost({ entry_id: 'e3', prompt_sha256: 'p1', model: 'other' }), // same text, another model: another tokenizer, no twin
      lost({ entry_id: 'e4', prompt_sha256: 'p1', output_tokens_max: null }), // written before the parts were recorded
    ],
    prices,
  );
  const recorded = (1264 * 2 + 500 * 10) / 1e6;
  assert.equal(a.totals.lost_calls, 4);
  assert.equal(a.totals.lost_input_exact_calls, 1);
  assert.equal(a.totals.lost_input_tokens_est, 310 + 300 * 3);
  assert.ok(Math.abs(a.totals.lost_cost_usd_max - ((310 * 2 + 500 * 10) / 1e6 + 3 * recorded)) < 1e-15);
  // Without prices, every lost call keeps the bound recorded before sending.
  assert.ok(Math.abs(auditRun([lost({ prompt_sha256: 'p1' }), call({ prompt_sha256: 'p1', try_no: 2 })]).totals.lost_cost_usd_max - recorded) < 1e-15);
});

test('default output cap: the reply allowance, plus the effort\'s thinking budget where the cap holds reasoning (openai); an explicit cap is kept', () => {
  const parse = (provider: string, reasoning_effort?: string, max_output_tokens?: number) => LlmSettings.parse({ provider, model: 'x', endpoint: provider === 'openai' ? 'responses' : provider === 'anthropic' ? 'messages' : 'generateContent', reasoning_effort, max_output_tokens }).max_output_tokens;
  assert.equal(parse('openai'), DEFAULT_REPLY_TOKENS);
  assert.equal(parse('openai', 'high'), DEFAULT_REPLY_TOKENS + 16_000);
  assert.equal(parse('openai', 'low'), DEFAULT_REPLY_TOKENS + 2048);
  assert.equal(parse('anthropic', 'high'), DEFAULT_REPLY_TOKENS); // its caller adds the thinking budget to max_tokens
  assert.equal(parse('gemini', 'medium'), DEFAULT_REPLY_TOKENS);
  assert.equal(parse('openai', 'high', 700), 700);
  assert.equal(LlmSettings.parse(LlmSettings.parse({ provider: 'openai', model: 'x', endpoint: 'responses', reasoning_effort: 'high' })).max_output_tokens, DEFAULT_REPLY_TOKENS + 16_000, 'parsing twice (CLI, then the activity) keeps it');
});
