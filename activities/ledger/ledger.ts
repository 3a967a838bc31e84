/**
 * The attempt ledger: one SQLite row per generator call, in `runs/<run>/ledger.sqlite`. It is what makes the
 * pipeline's promises checkable: every token is accounted for (audit), a retried activity reuses the response
 * its previous try stored instead of paying again, a call lost with a killed worker is marked `lost`, and
 * "no accepted entry was generated twice" is a query (`duplicateAcceptances`).
 *
 * Only the coordinator (the process that owns `runs/<run>/`) opens it: an llm worker, on this machine or another,
 * never sees the file. The workflow reserves a row through a coordinator activity before the llm activity may send
 * (`reserve`), and the coordinator completes it with the answer the activity returned (`finishCall` / `failCall`),
 * or settles it `lost` when the worker died with the request in flight (`settleLost`).
 *
 * SQLite (better-sqlite3 12; 13 crashes on Node 20) in WAL mode: a CLI and a default-queue worker beside it may
 * both open it; a busy timeout rides out their overlapping transactions.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallStatus, LedgerCall, LedgerPhase } from '../../core/generation/ledgerTypes.ts';
import { BudgetExceededError, BudgetWaitError } from '../llm/errors.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS calls (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL, phase TEXT NOT NULL, entry_id TEXT NOT NULL, attempt_no INTEGER NOT NULL, try_no INTEGER NOT NULL,
  status TEXT NOT NULL, http_status INTEGER, error TEXT,
  provider TEXT NOT NULL, model TEXT NOT NULL, endpoint TEXT NOT NULL, reasoning_effort TEXT,
  prompt_id TEXT NOT NULL, prompt_sha256 TEXT NOT NULL,
  started_at TEXT NOT NULL, latency_ms REAL,
  input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER, cost_usd REAL,
  input_tokens_est INTEGER, tokens_max INTEGER, cost_usd_max REAL, input_tokens_max INTEGER, output_tokens_max INTEGER,
  response_text TEXT, outcome TEXT, reasons TEXT NOT NULL DEFAULT '[]',
  UNIQUE (run_id, phase, entry_id, attempt_no, try_no)
);
CREATE INDEX IF NOT EXISTS calls_entry ON calls (run_id, phase, entry_id, attempt_no);
`;

export type CallKey = Pick<LedgerCall, 'run_id' | 'phase' | 'entry_id' | 'attempt_no'>;

export type StartCall = CallKey &
  Pick<LedgerCall, 'provider' | 'model' | 'endpoint' | 'reasoning_effort' | 'prompt_id' | 'prompt_sha256' | 'started_at'> &
  Partial<CallBound>;

/** A request's bounds, known before it is sent (core/generation/cost.ts callBound). */
export interface CallBound {
  input_tokens_est: number;
  /** Worst-case billed tokens (input upper bound + output allowance). */
  tokens_max: number;
  /** Its two parts: every prompt byte a token plus framing; the output cap the request states (reasoning included). */
  input_tokens_max: number;
  output_tokens_max: number;
  cost_usd_max: number;
}

/** A run's budget cap: USD and/or tokens. */
export interface BudgetCap {
  max_usd?: number;
  max_tokens?: number;
}

export interface StoredResponse {
  text: string;
  latency_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  model: string;
}

type Row = Omit<LedgerCall, 'reasons'> & { id: number; reasons: string; response_text: string | null; tokens_max: number | null; reservation: string | null };

/** Columns added after the first release: a ledger written before them is migrated on open. */
const ADDED_COLUMNS = [
  ['input_tokens_est', 'INTEGER'],
  ['tokens_max', 'INTEGER'],
  ['cost_usd_max', 'REAL'],
  ['input_tokens_max', 'INTEGER'],
  ['output_tokens_max', 'INTEGER'],
  // The workflow's token for one reservation: a reservation activity retried by Temporal (its worker died after
  // the insert) finds its row instead of adding a second one that was never sent.
  ['reservation', 'TEXT'],
] as const;

/**
 * Spend that counts against a cap: what was billed, plus the worst case of every call still in flight or lost
 * (its bill is unknown, so it is reserved at its bound). Refused calls (status error) were not billed.
 * `held_*` is the part reserved by calls in flight (`started`): released, down to their real bill, as they end.
 */
const SPEND_SQL = `SELECT
  COALESCE(SUM(CASE WHEN status IN ('started','lost') THEN COALESCE(cost_usd_max, 0) ELSE COALESCE(cost_usd, 0) END), 0) AS cost_usd,
  COALESCE(SUM(CASE WHEN status IN ('started','lost') THEN COALESCE(tokens_max, 0) ELSE COALESCE(input_tokens + output_tokens, 0) END), 0) AS tokens,
  COALESCE(SUM(CASE WHEN status = 'started' THEN COALESCE(cost_usd_max, 0) ELSE 0 END), 0) AS held_usd,
  COALESCE(SUM(CASE WHEN status = 'started' THEN COALESCE(tokens_max, 0) ELSE 0 END), 0) AS held_tokens
  FROM calls WHERE run_id=?`;

export class Ledger {
  private readonly db: Database.Database;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(SCHEMA);
    const have = new Set((this.db.prepare(`PRAGMA table_info(calls)`).all() as { name: string }[]).map((c) => c.name));
    for (const [name, type] of ADDED_COLUMNS) if (!have.has(name)) this.db.exec(`ALTER TABLE calls ADD COLUMN ${name} ${type}`);
    this.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS calls_reservation ON calls (reservation)`);
  }

  close(): void {
    this.db.close();
  }

  /** The stored response of this generation attempt, if an earlier try got one (then no new call is made). */
  storedResponse(k: CallKey): StoredResponse | null {
    const r = this.db
      .prepare(
        `SELECT response_text AS text, latency_ms, input_tokens, output_tokens, reasoning_tokens, cost_usd, model FROM calls
         WHERE run_id=? AND phase=? AND entry_id=? AND attempt_no=? AND status='ok' ORDER BY try_no LIMIT 1`,
      )
      .get(k.run_id, k.phase, k.entry_id, k.attempt_no) as StoredResponse | undefined;
    return r ?? null;
  }

  /**
   * Records a call about to be sent and returns its row id. A `started` row left by an earlier try of the same
   * attempt belongs to a worker that died mid-call: it becomes `lost` (its bill is unknown; its bounds stay).
   * With a `budget`, the call's worst case is reserved in the same (immediate, so cross-process) transaction:
   * it is refused with BudgetExceededError if billed spend + reservations + this worst case would pass the cap,
   * so concurrent calls can never overshoot it together.
   */
  startCall(c: StartCall, budget?: BudgetCap, reservation?: string): number {
    return this.db.transaction(() => {
      if (reservation !== undefined) {
        const held = this.db.prepare(`SELECT id FROM calls WHERE reservation=?`).get(reservation) as { id: number } | undefined;
        if (held) return held.id;
      }
      if (budget) this.refuseOverBudget(c.run_id, c, budget);
      this.db
        .prepare(`UPDATE calls SET status='lost', outcome='lost' WHERE run_id=? AND phase=? AND entry_id=? AND attempt_no=? AND status='started'`)
        .run(c.run_id, c.phase, c.entry_id, c.attempt_no);
      const next = this.db
        .prepare(`SELECT COALESCE(MAX(try_no), 0) + 1 AS n FROM calls WHERE run_id=? AND phase=? AND entry_id=? AND attempt_no=?`)
        .get(c.run_id, c.phase, c.entry_id, c.attempt_no) as { n: number };
      const info = this.db
        .prepare(
          `INSERT INTO calls (run_id, phase, entry_id, attempt_no, try_no, status, provider, model, endpoint, reasoning_effort, prompt_id, prompt_sha256, started_at,
                              input_tokens_est, tokens_max, cost_usd_max, input_tokens_max, output_tokens_max, reservation)
           VALUES (?, ?, ?, ?, ?, 'started', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(c.run_id, c.phase, c.entry_id, c.attempt_no, next.n, c.provider, c.model, c.endpoint, c.reasoning_effort, c.prompt_id, c.prompt_sha256, c.started_at,
          c.input_tokens_est ?? null, c.tokens_max ?? null, c.cost_usd_max ?? null, c.input_tokens_max ?? null, c.output_tokens_max ?? null, reservation ?? null);
      return Number(info.lastInsertRowid);
    }).immediate();
  }

  /**
   * A call whose worst case does not fit what is left of the cap. When it would not fit even with no call in
   * flight (billed + lost + its worst case > cap) no call of this size ever will: BudgetExceededError, the run
   * stops. When only the reservations of calls in flight are in its way, BudgetWaitError: it waits for them to
   * end (their bills are usually far below their worst cases) rather than stop the run far below the cap.
   */
  private refuseOverBudget(run_id: string, bound: Partial<CallBound>, budget: BudgetCap): void {
    const s = this.db.prepare(SPEND_SQL).get(run_id) as { cost_usd: number; tokens: number; held_usd: number; held_tokens: number };
    const cost = bound.cost_usd_max ?? 0;
    const tokens = bound.tokens_max ?? 0;
    if (budget.max_usd !== undefined && s.cost_usd + cost > budget.max_usd) {
      const settled = s.cost_usd - s.held_usd;
      if (settled + cost > budget.max_usd) {
        throw new BudgetExceededError(
          `budget cap reached: $${settled.toFixed(4)} spent (lost calls at their bound) + this call's worst case $${cost.toFixed(4)} > $${budget.max_usd} (rerun with a higher --budget-usd to resume)`,
        );
      }
      throw new BudgetWaitError(`$${s.held_usd.toFixed(4)} reserved by calls in flight`);
    }
    if (budget.max_tokens !== undefined && s.tokens + tokens > budget.max_tokens) {
      const settled = s.tokens - s.held_tokens;
      if (settled + tokens > budget.max_tokens) {
        throw new BudgetExceededError(`budget cap reached: ${settled} tokens used (lost calls at their bound) + this call's worst case ${tokens} > ${budget.max_tokens} (rerun with a higher --budget-tokens to resume)`);
      }
      throw new BudgetWaitError(`${s.held_tokens} tokens reserved by calls in flight`);
    }
  }

  /**
   * A reserved call whose worker died (its activity failed by heartbeat or start-to-close timeout): it may have
   * been sent and billed, and no answer will come, so it is `lost` with its bounds. Only a row still `started`.
   */
  settleLost(id: number): boolean {
    return this.db.prepare(`UPDATE calls SET status='lost', outcome='lost' WHERE id=? AND status='started'`).run(id).changes === 1;
  }

  /** A reserved call the llm worker refused before sending (no API key there, a setting it cannot send): no row. */
  release(id: number): boolean {
    return this.db.prepare(`DELETE FROM calls WHERE id=? AND status='started'`).run(id).changes === 1;
  }

  finishCall(id: number, r: StoredResponse): void {
    this.db
      .prepare(
        `UPDATE calls SET status='ok', response_text=?, latency_ms=?, input_tokens=?, output_tokens=?, reasoning_tokens=?, cost_usd=?, model=? WHERE id=?`,
      )
      .run(r.text, r.latency_ms, r.input_tokens, r.output_tokens, r.reasoning_tokens, r.cost_usd, r.model, id);
  }

  failCall(id: number, e: { http_status: number | null; error: string; latency_ms: number }): void {
    this.db
      .prepare(`UPDATE calls SET status='error', outcome='provider_error', http_status=?, error=?, latency_ms=? WHERE id=?`)
      .run(e.http_status, e.error.slice(0, 2000), e.latency_ms, id);
  }

  /** The judgement of a generation attempt (on its `ok` row): accepted / rejected / parse_error, with reasons. */
  judge(k: CallKey, outcome: string, reasons: readonly string[]): void {
    this.db
      .prepare(`UPDATE calls SET outcome=?, reasons=? WHERE run_id=? AND phase=? AND entry_id=? AND attempt_no=? AND status='ok'`)
      .run(outcome, JSON.stringify(reasons), k.run_id, k.phase, k.entry_id, k.attempt_no);
  }

  /** Spend so far (every call of the run, all phases), with in-flight and lost calls at their worst case. */
  spend(run_id: string): { cost_usd: number; tokens: number } {
    const s = this.db.prepare(SPEND_SQL).get(run_id) as { cost_usd: number; tokens: number };
    return { cost_usd: s.cost_usd, tokens: s.tokens };
  }

  /**
   * The attempt a (re)started entry continues with. Attempts are for the model: only a judged response (rejected,
   * parse_error) moves to the next number. An attempt that got no judgement (the provider failed, the budget
   * stopped it, the gate's oracle faulted, the workflow or worker died after the answer) is made again under the
   * same number, so its stored response, if any, is judged instead of re-requested; an accepted attempt is
   * judged again from its stored response (its entry file was lost), never regenerated.
   */
  resumeAttempt(run_id: string, phase: LedgerPhase, entry_id: string): number {
    const last = this.db
      .prepare(`SELECT COALESCE(MAX(attempt_no),0) AS n FROM calls WHERE run_id=? AND phase=? AND entry_id=?`)
      .get(run_id, phase, entry_id) as { n: number };
    if (last.n === 0) return 1;
    const judged = this.db
      .prepare(`SELECT outcome FROM calls WHERE run_id=? AND phase=? AND entry_id=? AND attempt_no=? AND status='ok' AND outcome IN ('rejected','parse_error') LIMIT 1`)
      .get(run_id, phase, entry_id, last.n) as { outcome: string } | undefined;
    return judged ? last.n + 1 : last.n;
  }

  /** The last rejected / parse_error judgement before `before` (its reasons become the regeneration's feedback). */
  lastRejection(run_id: string, phase: LedgerPhase, entry_id: string, before: number): { attempt_no: number; reasons: string[] } | null {
    const r = this.db
      .prepare(
        `SELECT attempt_no, reasons FROM calls WHERE run_id=? AND phase=? AND entry_id=? AND attempt_no<? AND status='ok' AND outcome IN ('rejected','parse_error')
         ORDER BY attempt_no DESC LIMIT 1`,
      )
      .get(run_id, phase, entry_id, before) as { attempt_no: number; reasons: string } | undefined;
    return r ? { attempt_no: r.attempt_no, reasons: JSON.parse(r.reasons) as string[] } : null;
  }

  /**
   * Rows an earlier worker left `started` (it died mid-call) become `lost`: no response will come for them. With
   * `entry_id`, that entry's rows (when the entry is started again); without, the whole phase's (when the phase
   * starts again: the registry phase, whose new workflow means the old one and its calls are gone). Returns how
   * many were reconciled.
   */
  reconcileStarted(run_id: string, phase: LedgerPhase, entry_id?: string): number {
    return (
      entry_id === undefined
        ? this.db.prepare(`UPDATE calls SET status='lost', outcome='lost' WHERE run_id=? AND phase=? AND status='started'`).run(run_id, phase)
        : this.db.prepare(`UPDATE calls SET status='lost', outcome='lost' WHERE run_id=? AND phase=? AND entry_id=? AND status='started'`).run(run_id, phase, entry_id)
    ).changes;
  }

  calls(run_id?: string): LedgerCall[] {
    const rows = (
      run_id
        ? this.db.prepare(`SELECT * FROM calls WHERE run_id=? ORDER BY id`).all(run_id)
        : this.db.prepare(`SELECT * FROM calls ORDER BY id`).all()
    ) as Row[];
    return rows.map(({ id: _id, response_text: _t, tokens_max: _m, reservation: _r, reasons, ...r }) => ({ ...r, status: r.status as CallStatus, reasons: JSON.parse(reasons) as string[] }));
  }

  /** Entries with more than one accepted attempt, or a call made after their acceptance: must be empty. */
  duplicateAcceptances(run_id: string): { entry_id: string; accepted: number; calls_after: number }[] {
    return this.db
      .prepare(
        `WITH acc AS (SELECT entry_id, COUNT(*) AS accepted, MIN(attempt_no) AS at FROM calls
                      WHERE run_id=? AND phase='entry' AND outcome='accepted' GROUP BY entry_id)
         SELECT acc.entry_id, acc.accepted,
                (SELECT COUNT(*) FROM calls c WHERE c.run_id=? AND c.phase='entry' AND c.entry_id=acc.entry_id AND c.attempt_no>acc.at) AS calls_after
         FROM acc WHERE acc.accepted > 1 OR calls_after > 0`,
      )
      .all(run_id, run_id) as { entry_id: string; accepted: number; calls_after: number }[];
  }
}

/** One open handle per ledger file per process (the llm and exec activities of one worker share it). */
const open = new Map<string, Ledger>();
export function ledgerAt(path: string): Ledger {
  let l = open.get(path);
  if (!l) {
    l = new Ledger(path);
    open.set(path, l);
  }
  return l;
}
export function closeLedgers(): void {
  for (const l of open.values()) l.close();
  open.clear();
}
