/**
 * The audit of a run's attempt ledger: tokens and cost per entry, by model, by outcome, attempts per accepted
 * entry and the first-attempt validation rate (the paper reports 91 of 100 validation-batch entries accepted at
 * their first attempt). Pure: takes ledger rows, returns tables.
 */
import type { EmbeddingBatchRow, LedgerCall } from './ledgerTypes.ts';
import { callCostUsd, hasPrice, type PriceTable } from './cost.ts';

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
  /** Lost calls whose input tokens are exact (the same prompt was answered by the same model: `tightenLostBounds`). */
  lost_input_exact_calls: number;
  /**
   * Calls the provider refused (`error`: an HTTP error, or a batch line that errored): not billed, and not answered
   * (issue 37: counted as answered, the audit said "15 answered calls" where 12 were billed).
   */
  refused_calls: number;
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

const zero = (): Totals => ({ calls: 0, input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cost_usd: 0, lost_calls: 0, lost_input_tokens_est: 0, lost_cost_usd_max: 0, lost_input_exact_calls: 0, refused_calls: 0 });

function add(t: Totals, c: LedgerCall): void {
  t.calls += 1;
  t.input_tokens += c.input_tokens ?? 0;
  t.output_tokens += c.output_tokens ?? 0;
  t.reasoning_tokens += c.reasoning_tokens ?? 0;
  t.cost_usd += c.cost_usd ?? 0;
  if (c.status === 'error') t.refused_calls += 1;
  if (c.status === 'lost' || c.status === 'started') {
    t.lost_calls += 1;
    t.lost_input_tokens_est += c.input_tokens_est ?? 0;
    t.lost_cost_usd_max += c.cost_usd_max ?? 0;
    if (exactInput.has(c)) t.lost_input_exact_calls += 1;
  }
}

/** Lost calls whose bound `tightenLostBounds` rebuilt from an exact input count. */
const exactInput = new WeakSet<LedgerCall>();

/**
 * A lost call's bound, as tight as the ledger allows while staying an upper bound. Before sending, its input
 * could only be bounded by the prompt's UTF-8 bytes (a byte-level BPE token covers at least one byte: ~4x what
 * English or code bills). But a provider tokenizes the same text for the same model the same way, so when another
 * call of the run with the identical prompt (same sha256 of system + user, same provider and model) was answered,
 * its reported input tokens are the lost call's exactly, and the bound becomes that input plus the output cap the
 * request stated. That twin is the usual case: a call lost with a killed worker is sent again, same attempt, same
 * prompt, by the worker that takes over. The output stays at the cap: the lost answer's length is unknowable, and
 * another answer to the same prompt is another sample, not a bound. Without a twin (or a price, or a row written
 * before the bound's parts were recorded) the recorded byte bound stands.
 */
export function tightenLostBounds(calls: readonly LedgerCall[], prices: PriceTable): LedgerCall[] {
  const answered = new Map<string, number>();
  const twinKey = (c: LedgerCall) => `${c.provider}\u0000${c.model}\u0000${c.prompt_sha256}`;
  for (const c of calls) if (c.status === 'ok' && (c.input_tokens ?? 0) > 0) answered.set(twinKey(c), c.input_tokens!);
  return calls.map((c) => {
    if (c.status !== 'lost' && c.status !== 'started') return c;
    const input = answered.get(twinKey(c));
    const out = c.output_tokens_max;
    if (input === undefined || out == null || !hasPrice(prices, c.provider, c.model)) return c;
    const cost = callCostUsd(prices, c.provider, c.model, { input_tokens: input, output_tokens: out, reasoning_tokens: 0 });
    // Never looser than what was recorded (a price table edited since could only make it so).
    const t: LedgerCall = { ...c, input_tokens_est: input, cost_usd_max: Math.min(cost, c.cost_usd_max ?? Infinity) };
    exactInput.add(t);
    return t;
  });
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

/** With `prices`, lost calls are bounded by `tightenLostBounds`; without, by the bounds recorded before sending. */
export function auditRun(callsIn: readonly LedgerCall[], prices?: PriceTable): RunAudit {
  const calls = prices ? tightenLostBounds(callsIn, prices) : callsIn;
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

/** What the embedding requests of a run cost, for one configuration (or all of them). */
export interface EmbeddingTotals {
  config_id: string;
  /** Requests that left the machine (every try of every batch, refused ones included). */
  requests: number;
  /** Answered batches and the texts in them: what the provider billed, by its own count where it reports one. */
  billed_batches: number;
  billed_texts: number;
  tokens_reported: number;
  tokens_estimated: number;
  cost_usd: number;
  /** Refused with an HTTP status (429, 5xx, 4xx): not billed. */
  refused: number;
  /**
   * Sent, no usable answer recorded (`lost`, or `started` and never completed): the provider may have billed them.
   * The bill lies in [cost_usd, cost_usd + lost_cost_usd_max].
   */
  lost_batches: number;
  lost_texts: number;
  lost_input_tokens_est: number;
  lost_cost_usd_max: number;
  /** Sweeps that paid for something, with what they paid (answered batches only). */
  by_sweep: { sweep_id: string; billed_texts: number; cost_usd: number }[];
}

const zeroEmbedding = (config_id: string): EmbeddingTotals => ({
  config_id, requests: 0, billed_batches: 0, billed_texts: 0, tokens_reported: 0, tokens_estimated: 0, cost_usd: 0,
  refused: 0, lost_batches: 0, lost_texts: 0, lost_input_tokens_est: 0, lost_cost_usd_max: 0, by_sweep: [],
});

function addBatch(t: EmbeddingTotals, r: EmbeddingBatchRow): void {
  t.requests += 1;
  if (r.status === 'ok') {
    t.billed_batches += 1;
    t.billed_texts += r.texts;
    t.tokens_reported += r.tokens_reported ?? 0;
    t.tokens_estimated += r.tokens_estimated ?? 0;
    t.cost_usd += r.cost_usd ?? 0;
    let s = t.by_sweep.find((x) => x.sweep_id === r.sweep_id);
    if (!s) t.by_sweep.push((s = { sweep_id: r.sweep_id, billed_texts: 0, cost_usd: 0 }));
    s.billed_texts += r.texts;
    s.cost_usd += r.cost_usd ?? 0;
  } else if (r.status === 'error') {
    t.refused += 1;
  } else {
    t.lost_batches += 1;
    t.lost_texts += r.texts;
    t.lost_input_tokens_est += r.input_tokens_est;
    t.lost_cost_usd_max += r.cost_usd_max;
  }
}

/** Embedding spend per configuration (sorted by id) and in all, from the ledger's batch rows. Pure. */
export function auditEmbeddingBatches(rows: readonly EmbeddingBatchRow[]): { configs: EmbeddingTotals[]; totals: EmbeddingTotals } {
  const by = new Map<string, EmbeddingTotals>();
  const totals = zeroEmbedding('all');
  for (const r of rows) {
    if (!by.has(r.config_id)) by.set(r.config_id, zeroEmbedding(r.config_id));
    addBatch(by.get(r.config_id)!, r);
    addBatch(totals, r);
  }
  return { configs: [...by.values()].sort((a, b) => (a.config_id < b.config_id ? -1 : a.config_id > b.config_id ? 1 : 0)), totals };
}
