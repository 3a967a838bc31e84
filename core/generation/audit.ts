/**
 * The audit of a run's attempt ledger: tokens and cost per entry, by model, by outcome, attempts per accepted
 * entry and the first-attempt validation rate (the paper reports 91 of 100 validation-batch entries accepted at
 * their first attempt). Pure: takes ledger rows, returns tables.
 */
import type { LedgerCall } from './ledgerTypes.ts';

export interface Totals {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  /** What the provider reported and billed (calls with a recorded response). */
  cost_usd: number;
  /**
   * Calls sent whose response was never recorded (`lost`: the worker died; `started`: in flight), which the
   * provider may still have billed: their input tokens estimated from the prompt and an upper bound on their cost.
   * The true bill lies in [cost_usd, cost_usd + lost_cost_usd_max].
   */
  lost_calls: number;
  lost_input_tokens_est: number;
  lost_cost_usd_max: number;
}

export interface EntryAudit extends Totals {
  entry_id: string;
  attempts: number;
  /** accepted | rejected | parse_error | provider_error | lost | pending */
  final_outcome: string;
  accepted_at_attempt: number | null;
}

export interface GroupAudit extends Totals {
  key: string;
}

export interface RunAudit {
  totals: Totals;
  entries: EntryAudit[];
  by_model: GroupAudit[];
  by_outcome: GroupAudit[];
  by_phase: GroupAudit[];
  accepted_entries: number;
  /** Mean number of generation attempts an accepted entry took (1 = first try); null with none accepted. */
  attempts_per_accepted: number | null;
  /** Entries accepted at attempt 1 / entries whose attempt 1 was judged; null when none was. */
  first_attempt_validation_rate: number | null;
  first_attempt_judged: number;
  first_attempt_accepted: number;
}

const zero = (): Totals => ({ calls: 0, input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cost_usd: 0, lost_calls: 0, lost_input_tokens_est: 0, lost_cost_usd_max: 0 });

function add(t: Totals, c: LedgerCall): void {
  t.calls += 1;
  t.input_tokens += c.input_tokens ?? 0;
  t.output_tokens += c.output_tokens ?? 0;
  t.reasoning_tokens += c.reasoning_tokens ?? 0;
  t.cost_usd += c.cost_usd ?? 0;
  if (c.status === 'lost' || c.status === 'started') {
    t.lost_calls += 1;
    t.lost_input_tokens_est += c.input_tokens_est ?? 0;
    t.lost_cost_usd_max += c.cost_usd_max ?? 0;
  }
}

/** What a call counts as in the by-outcome table: its judgement, else what happened to the request. */
export function callOutcome(c: LedgerCall): string {
  if (c.outcome) return c.outcome;
  if (c.status === 'ok') return 'pending';
  if (c.status === 'error') return 'provider_error';
  return c.status; // started (in flight) or lost
}

function grouped(calls: readonly LedgerCall[], key: (c: LedgerCall) => string): GroupAudit[] {
  const m = new Map<string, Totals>();
  for (const c of calls) {
    const k = key(c);
    if (!m.has(k)) m.set(k, zero());
    add(m.get(k)!, c);
  }
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, t]) => ({ key: k, ...t }));
}

const JUDGED = new Set(['accepted', 'rejected', 'parse_error']);

export function auditRun(calls: readonly LedgerCall[]): RunAudit {
  const totals = zero();
  for (const c of calls) add(totals, c);
  const entryCalls = calls.filter((c) => c.phase === 'entry');
  const byEntry = new Map<string, LedgerCall[]>();
  for (const c of entryCalls) {
    if (!byEntry.has(c.entry_id)) byEntry.set(c.entry_id, []);
    byEntry.get(c.entry_id)!.push(c);
  }
  const entries: EntryAudit[] = [];
  let firstJudged = 0;
  let firstAccepted = 0;
  for (const [entry_id, cs] of [...byEntry.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const t = zero();
    for (const c of cs) add(t, c);
    const attemptNos = new Set(cs.map((c) => c.attempt_no));
    const accepted = cs.filter((c) => c.outcome === 'accepted').map((c) => c.attempt_no);
    const acceptedAt = accepted.length ? Math.min(...accepted) : null;
    const last = [...cs].sort((a, b) => a.attempt_no - b.attempt_no || a.try_no - b.try_no).at(-1)!;
    const first = cs.filter((c) => c.attempt_no === 1 && JUDGED.has(c.outcome ?? ''));
    if (first.length) {
      firstJudged += 1;
      if (first.some((c) => c.outcome === 'accepted')) firstAccepted += 1;
    }
    entries.push({
      entry_id,
      ...t,
      attempts: attemptNos.size,
      final_outcome: acceptedAt !== null ? 'accepted' : callOutcome(last),
      accepted_at_attempt: acceptedAt,
    });
  }
  const acceptedEntries = entries.filter((e) => e.accepted_at_attempt !== null);
  return {
    totals,
    entries,
    by_model: grouped(calls, (c) => `${c.provider}/${c.model}`),
    by_outcome: grouped(calls, callOutcome),
    by_phase: grouped(calls, (c) => c.phase),
    accepted_entries: acceptedEntries.length,
    attempts_per_accepted: acceptedEntries.length
      ? acceptedEntries.reduce((s, e) => s + e.accepted_at_attempt!, 0) / acceptedEntries.length
      : null,
    first_attempt_validation_rate: firstJudged ? firstAccepted / firstJudged : null,
    first_attempt_judged: firstJudged,
    first_attempt_accepted: firstAccepted,
  };
}
