/**
 * The audit's answered calls are the ones the provider answered (issue 37: batch lines that errored were counted as
 * answered, "15 answered calls" where 12 were billed). A hand-made ledger: 12 answered, 3 refused, 1 lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditRun } from '../../core/generation/audit.ts';
import type { LedgerCall } from '../../core/generation/ledgerTypes.ts';
import { formatAudit } from '../../cli/commands/audit.ts';

const call = (i: number, p: Partial<LedgerCall> = {}): LedgerCall => ({
  run_id: 'r', phase: 'entry', entry_id: `e${i}`, attempt_no: 1, try_no: 1, status: 'ok', http_status: null, error: null,
  provider: 'openai', model: 'm', endpoint: 'batch', reasoning_effort: null, prompt_id: 'entry.v1', prompt_sha256: `p${i}`,
  started_at: 't', latency_ms: 1, input_tokens: 100, output_tokens: 50, reasoning_tokens: 0, cost_usd: 0.001, input_tokens_est: 90, cost_usd_max: 0.01, outcome: 'accepted', reasons: [],
  ...p,
});

test('errored batch lines are refused, not answered: 12 answered, 3 refused, 1 lost', () => {
  const refused = { status: 'error' as const, http_status: null, error: 'batch request failed', outcome: 'provider_error', input_tokens: null, output_tokens: null, reasoning_tokens: null, cost_usd: null };
  const ledger = [
    ...Array.from({ length: 12 }, (_, i) => call(i)),
    ...Array.from({ length: 3 }, (_, i) => call(20 + i, refused)),
    call(30, { status: 'lost', outcome: 'lost', input_tokens: null, output_tokens: null, reasoning_tokens: null, cost_usd: null }),
  ];
  const a = auditRun(ledger);
  assert.deepEqual([a.totals.calls, a.totals.refused_calls, a.totals.lost_calls], [16, 3, 1]);
  assert.ok(Math.abs(a.totals.cost_usd - 0.012) < 1e-12);
  assert.match(formatAudit(a, { entries: false }), /billed: \$0\.012000 over 12 answered calls \(3 more refused by the provider: not billed\); 1 lost calls/);
});
