/**
 * Activities of `generate benchmark --batch` (workflows/batchBenchmark.ts), on the `llm` queue: a round's
 * requests go to the provider's batch API in one batch, whose results become ledger rows, judged like the
 * real-time path's.
 *
 * Kill safety, step by step (a kill can fall anywhere; each step is an activity Temporal retries):
 *  - submitRound: the round's batch is recorded (`preparing`, with its requests and their hash) BEFORE the upload
 *    and the create, and (`submitted`, with the batch id) AFTER. A retry that finds `preparing` first asks the
 *    provider's list for a batch with the round's metadata (run, round, hash): found, it is adopted; not found, it
 *    was never created, so creating it now submits those requests once. A retry that finds `submitted` does
 *    nothing. The requests of a recorded round are never recomputed: the row holds them.
 *  - pollRound: reads the provider's status; harmless to repeat.
 *  - ingestRound: downloads the output and error files, then writes every request's ledger row and marks the
 *    batch ingested in one transaction (all or nothing); a retry after that writes nothing.
 *  - judging (batchExecActivities.judgeBatchedEntry, on the exec queue) reads the ledger only; never a provider.
 * Attempts are for the model, as on the real-time path: a request that failed inside the batch (HTTP error,
 * expired, cancelled) is a new try of the same attempt in the next round, at most --max-attempts times.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { buildEntryPrompt, buildRegistryPrompt, type PromptMessages, type PromptSet } from '../../core/generation/prompts.ts';
import { callBound, callCostUsd, hasPrice, priceKey, type PriceTable } from '../../core/generation/cost.ts';
import { parseEntryResponse, parseRegistryResponse } from '../../core/generation/parse.ts';
import { LlmSettings, type AttemptSummary, type EntryResult, type EntryStatus, type RegistryEntry } from '../../core/generation/types.ts';
import type { Task } from '../../schemas/task.ts';
import type { LedgerPhase } from '../../core/generation/ledgerTypes.ts';
import type { EntrySource } from '../generation/defaultActivities.ts';
import { loadPromptSet, promptSha256 } from '../generation/files.ts';
import { readEntryResult, readRegistry, runPaths, writeEntryResult } from '../generation/runFiles.ts';
import { toTemporalFailure, withHeartbeat } from '../generation/temporalErrors.ts';
import { ledgerAt, type BudgetCap } from '../ledger/ledger.ts';
import { InvalidInputError } from '../llm/errors.ts';
import { outputAllowance, providerEnv } from '../llm/providers.ts';
import { loadBatchPriceTable } from './prices.ts';
import type { BatchResult } from './openaiBatch.ts';
import { batchApiOf } from './providerBatches.ts';
import { batchStoreAt, type BatchRequest, type BatchRow, type IngestedResult } from './store.ts';

export interface RoundInput {
  runId: string;
  runDir: string;
  round: number;
  /** The registry whose entries are generated (phase `entry`). */
  source?: EntrySource;
  /** Phase `registry` instead: (function_name, query, domain) triples for these domains. */
  registryPhase?: { domains: string[]; perDomain: number };
  settings: LlmSettings;
  promptId: string;
  maxAttempts: number;
  budget?: BudgetCap;
}

export interface SubmitOutcome {
  /** null: nothing to request this round (or the budget admits none). */
  batch_id: string | null;
  requests: number;
  /** How this call found the batch: created now, adopted from the provider's list, or already recorded. */
  how: 'created' | 'adopted' | 'recorded' | 'none';
  /** Requests the budget did not admit (their entries end budget_exhausted). */
  budget_refused: number;
}

export interface BatchTally {
  total: number;
  accepted: number;
  rejected: number;
  provider_error: number;
  budget_exhausted: number;
  /** Entries left with neither a final judgement nor a stop reason (none after a finished run). */
  unfinished: number;
}

export interface BatchActivityDeps {
  env: Readonly<Record<string, string | undefined>>;
}

/** The registry read once per worker while the file is unchanged. */
let lastRegistry: { key: string; entries: Map<string, RegistryEntry>; order: RegistryEntry[] } | null = null;
function registry(source: EntrySource): { entries: Map<string, RegistryEntry>; order: RegistryEntry[] } {
  const key = `${source.path}@${statSync(source.path).mtimeMs}`;
  if (lastRegistry?.key !== key) {
    const order = readRegistry(source.path).entries;
    lastRegistry = { key, order, entries: new Map(order.map((e) => [e.entry_id, e])) };
  }
  return lastRegistry;
}

const PHASE = 'entry' as const;
const phaseOf = (input: Pick<RoundInput, 'registryPhase'>): LedgerPhase => (input.registryPhase ? 'registry' : 'entry');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const REGISTRY_PREFIX = 'registry:';

/** Ledger rows grouped by entry (one pass; a large run's rounds must not scan the run once per entry). */
function byEntry<T extends { entry_id: string }>(rows: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const list = m.get(r.entry_id);
    if (list) list.push(r);
    else m.set(r.entry_id, [r]);
  }
  return m;
}

function sourceOf(input: RoundInput): EntrySource {
  if (!input.source) throw new InvalidInputError('batch round: no registry source given for the entry phase');
  return input.source;
}

/** The metadata a round's batch is created with, and found again by (OpenAI: 16 pairs, values up to 512 chars). */
export function batchMetadata(runId: string, phase: LedgerPhase, round: number, requestsSha256: string): Record<string, string> {
  return { execretrieval_run: runId.slice(0, 512), execretrieval_round: `${phase}:${round}`, requests_sha256: requestsSha256 };
}

function checkBatchable(s: LlmSettings, batchPrices: PriceTable): void {
  batchApiOf(s);
  if (!hasPrice(batchPrices, s.provider, s.model)) throw new InvalidInputError(`data/prices.json has no batch price for "${priceKey(s.provider, s.model)}" (under "batch" → "models"): add it before generating with --batch`);
}

export function createBatchActivities(deps: BatchActivityDeps) {
  /** Function names the registry phase has accepted so far (the next round's prompts list them as taken). */
  function takenNames(input: RoundInput): string[] {
    const ledger = ledgerAt(runPaths(input.runDir).ledger);
    const names: string[] = [];
    for (const c of ledger.calls(input.runId)) {
      if (c.phase !== 'registry' || c.outcome !== 'accepted') continue;
      const stored = ledger.storedResponse(c);
      const parsed = stored ? parseRegistryResponse(stored.text, c.entry_id.slice(REGISTRY_PREFIX.length)) : null;
      if (parsed?.ok) names.push(...parsed.value.map((t) => t.function_name));
    }
    return names;
  }

  /** What the round asks about: registry entries (phase entry) or domains (phase registry), in a fixed order. */
  function subjects(input: RoundInput): string[] {
    if (input.registryPhase) return input.registryPhase.domains.map((d) => `${REGISTRY_PREFIX}${d}`);
    return registry(sourceOf(input)).order.map((e) => e.entry_id);
  }

  /** The prompt of (subject, attempt), with the last rejection's reasons as feedback, as the real-time path builds it. */
  function messagesFor(input: RoundInput, set: PromptSet, id: string, attempt: number, taken: string[]): PromptMessages {
    const phase = phaseOf(input);
    const last = ledgerAt(runPaths(input.runDir).ledger).lastRejection(input.runId, phase, id, attempt);
    const feedback = last ? { previous_attempt: last.attempt_no, reasons: last.reasons } : undefined;
    if (input.registryPhase) return buildRegistryPrompt(set, id.slice(REGISTRY_PREFIX.length), input.registryPhase.perDomain, taken, feedback);
    const entry = registry(sourceOf(input)).entries.get(id);
    if (!entry) throw new InvalidInputError(`${sourceOf(input).path}: entry ${id} of a recorded batch round is no longer in the registry`);
    return buildEntryPrompt(set, entry, feedback);
  }

  /** The requests this round would send: one per unfinished subject whose next attempt has no answer yet. */
  function plan(input: RoundInput, batchPrices: PriceTable): { requests: BatchRequest[]; bodies: Map<string, unknown> } {
    const phase = phaseOf(input);
    const ledger = ledgerAt(runPaths(input.runDir).ledger);
    const set = loadPromptSet(input.promptId);
    const calls = byEntry(ledger.calls(input.runId).filter((c) => c.phase === phase));
    const taken = input.registryPhase ? takenNames(input) : [];
    const requests: BatchRequest[] = [];
    const bodies = new Map<string, unknown>();
    // Requests already in a batch not yet ingested are at the provider: never send them again.
    const atProvider = new Set(
      batchStoreAt(runPaths(input.runDir).ledger).list(input.runId).filter((b) => b.status !== 'ingested' && b.phase === phase).flatMap((b) => b.requests.map((q) => `${q.entry_id}#${q.attempt_no}`)),
    );
    for (const id of subjects(input)) {
      if (phase === 'entry') {
        const done = readEntryResult(input.runDir, id);
        if (done && (done.status === 'accepted' || done.status === 'rejected')) continue;
      } else if ((calls.get(id) ?? []).some((c) => c.outcome === 'accepted')) continue;
      const attempt = ledger.resumeAttempt(input.runId, phase, id);
      if (attempt > input.maxAttempts) continue;
      const mine = (calls.get(id) ?? []).filter((c) => c.attempt_no === attempt);
      if (mine.some((c) => c.status === 'ok' || c.status === 'started')) continue; // answered (to judge), or a real-time call in flight
      if (atProvider.has(`${id}#${attempt}`)) continue;
      if (mine.filter((c) => c.status === 'error').length >= input.maxAttempts) continue; // failed too often: provider_error
      const messages = messagesFor(input, set, id, attempt, taken);
      const custom_id = `${input.round}-${requests.length + 1}`;
      const bound = callBound(batchPrices, input.settings.provider, input.settings.model, { chars: messages.system.length + messages.user.length, bytes: Buffer.byteLength(messages.system) + Buffer.byteLength(messages.user) }, outputAllowance(input.settings));
      requests.push({ custom_id, entry_id: id, attempt_no: attempt, prompt_id: input.promptId, prompt_sha256: promptSha256(messages), ...bound });
      bodies.set(custom_id, batchApiOf(input.settings).body(input.settings, messages));
    }
    return { requests, bodies };
  }

  /** Keeps the prefix of `requests` whose worst case fits the cap next to what is billed and what other batches reserve. */
  function admit(input: RoundInput, requests: BatchRequest[]): BatchRequest[] {
    if (!input.budget) return requests;
    const ledger = ledgerAt(runPaths(input.runDir).ledger);
    const s = ledger.spend(input.runId);
    const open = batchStoreAt(runPaths(input.runDir).ledger).inFlightMax(input.runId);
    let usd = s.cost_usd + open.cost_usd;
    let tokens = s.tokens + open.tokens;
    const kept: BatchRequest[] = [];
    for (const r of requests) {
      if (input.budget.max_usd !== undefined && usd + r.cost_usd_max > input.budget.max_usd) break;
      if (input.budget.max_tokens !== undefined && tokens + r.tokens_max > input.budget.max_tokens) break;
      usd += r.cost_usd_max;
      tokens += r.tokens_max;
      kept.push(r);
    }
    return kept;
  }

  async function submit(input: RoundInput): Promise<SubmitOutcome> {
    const settings = LlmSettings.parse(input.settings);
    const batchPrices = loadBatchPriceTable();
    checkBatchable(settings, batchPrices);
    const store = batchStoreAt(runPaths(input.runDir).ledger);
    const env = providerEnv(settings.provider, deps.env);
    const phase = phaseOf(input);
    let row = store.get(input.runId, phase, input.round);
    let refused = 0;
    if (!row) {
      const { requests: all, bodies } = plan({ ...input, settings }, batchPrices);
      const requests = admit(input, all);
      refused = all.length - requests.length;
      if (requests.length === 0) return { batch_id: null, requests: 0, how: 'none', budget_refused: refused };
      batchApiOf(settings).check?.(requests.map((r) => ({ custom_id: r.custom_id, body: bodies.get(r.custom_id) })));
      const hash = sha256(JSON.stringify(requests.map((r) => [r.custom_id, r.entry_id, r.attempt_no, r.prompt_sha256])) + JSON.stringify(settings));
      // (1) Recorded before anything leaves the machine.
      store.prepare({ run_id: input.runId, phase, round: input.round, provider: settings.provider, endpoint: settings.endpoint, model: settings.model, requests_sha256: hash, requests, cost_usd_max: requests.reduce((a, r) => a + r.cost_usd_max, 0) });
      row = store.get(input.runId, phase, input.round)!;
      if (row.requests_sha256 === hash) return createAndRecord(row, settings, env, [...bodies.entries()].map(([custom_id, body]) => ({ custom_id, body })), input.runDir, refused);
    }
    if (row.status !== 'preparing') return { batch_id: row.batch_id, requests: row.request_count, how: 'recorded', budget_refused: refused };
    // (2) A record without a batch id: the create may or may not have reached the provider. Ask before creating.
    const metadata = batchMetadata(row.run_id, phase, row.round, row.requests_sha256);
    const found = await batchApiOf(settings).find(settings, env, metadata, Date.parse(row.prepared_at) - 60_000, row.request_count);
    if (found) {
      store.submitted(row.run_id, phase, row.round, found.batch_id, found.input_file_id, found.status);
      return { batch_id: found.batch_id, requests: row.request_count, how: 'adopted', budget_refused: refused };
    }
    // Never created: rebuild exactly the recorded requests (same subjects, attempts and prompts) and create it.
    const set = loadPromptSet(input.promptId);
    const taken = input.registryPhase ? takenNames(input) : [];
    const bodies = row.requests.map((q) => {
      const messages = messagesFor(input, set, q.entry_id, q.attempt_no, taken);
      if (promptSha256(messages) !== q.prompt_sha256) throw new InvalidInputError(`batch round ${row!.round}, ${q.entry_id}: the prompt no longer matches the recorded one (prompt set or registry changed since); use a new --run id`);
      return { custom_id: q.custom_id, body: batchApiOf(settings).body(settings, messages) };
    });
    return createAndRecord(row, settings, env, bodies, input.runDir, refused);
  }

  async function createAndRecord(row: BatchRow, settings: LlmSettings, env: ReturnType<typeof providerEnv>, bodies: { custom_id: string; body: unknown }[], runDir: string, refused: number): Promise<SubmitOutcome> {
    const b = await batchApiOf(settings).create(settings, env, bodies, batchMetadata(row.run_id, row.phase, row.round, row.requests_sha256));
    // (3) Recorded after: from here on a retry finds the id and does nothing.
    batchStoreAt(runPaths(runDir).ledger).submitted(row.run_id, row.phase, row.round, b.batch_id, b.input_file_id, b.status);
    return { batch_id: b.batch_id, requests: row.request_count, how: 'created', budget_refused: refused };
  }

  function rowOf(input: Pick<RoundInput, 'runDir' | 'runId' | 'round' | 'registryPhase'>): BatchRow {
    const row = batchStoreAt(runPaths(input.runDir).ledger).get(input.runId, phaseOf(input), input.round);
    if (!row || !row.batch_id) throw new InvalidInputError(`${runPaths(input.runDir).ledger}: no submitted batch for round ${input.round} of run ${input.runId}`);
    return row;
  }

  /** Provider status; an ended batch is recorded `ended` with its files and end time. */
  async function poll(input: RoundInput): Promise<{ ended: boolean; status: string }> {
    const row = rowOf(input);
    if (row.status === 'ended' || row.status === 'ingested') return { ended: true, status: row.provider_status ?? row.status };
    const settings = LlmSettings.parse(input.settings);
    const b = await batchApiOf(settings).retrieve(settings, providerEnv(settings.provider, deps.env), row.batch_id!);
    const ended = b.ended ? { output_file_id: b.output_file_id, error_file_id: b.error_file_id, ended_at: new Date(b.ended_ms ?? Date.now()).toISOString() } : null;
    batchStoreAt(runPaths(input.runDir).ledger).polled(input.runId, row.phase, input.round, b.status, ended);
    return { ended: b.ended, status: b.status };
  }

  async function ingest(input: RoundInput): Promise<{ answered: number; failed: number; written: number }> {
    const row = rowOf(input);
    const store = batchStoreAt(runPaths(input.runDir).ledger);
    if (row.status === 'ingested') return { answered: 0, failed: 0, written: 0 };
    if (row.status !== 'ended') throw new InvalidInputError(`batch ${row.batch_id} (round ${row.round}) has not ended: poll it first`);
    const settings = LlmSettings.parse(input.settings);
    const prices = loadBatchPriceTable();
    const results: Map<string, BatchResult> = await batchApiOf(settings).results(settings, providerEnv(settings.provider, deps.env), row, batchMetadata(row.run_id, row.phase, row.round, row.requests_sha256));
    const ingested = new Map<string, IngestedResult>();
    let answered = 0;
    for (const [id, r] of results) {
      if (r.ok) {
        answered += 1;
        // Priced by the requested model at batch prices: the output file's usage is the invoice.
        ingested.set(id, { custom_id: id, ok: true, text: r.reply.text, model: r.reply.model, ...r.reply.usage, cost_usd: callCostUsd(prices, settings.provider, settings.model, r.reply.usage) });
      } else ingested.set(id, r);
    }
    const latency = row.ended_at && row.submitted_at ? Math.max(0, Date.parse(row.ended_at) - Date.parse(row.submitted_at)) : null;
    const { written } = store.ingest(row, ingested, { reasoning_effort: settings.reasoning_effort ?? null, latency_ms: latency });
    return { answered, failed: row.request_count - answered, written };
  }


  return {
    async submitRound(input: RoundInput): Promise<SubmitOutcome> {
      try {
        return await withHeartbeat(() => submit(input));
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },

    async pollRound(input: RoundInput): Promise<{ ended: boolean; status: string }> {
      try {
        return await withHeartbeat(() => poll(input));
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },

    async ingestRound(input: RoundInput): Promise<{ answered: number; failed: number; written: number }> {
      try {
        return await withHeartbeat(() => ingest(input));
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },

    /**
     * Registry phase: judges every answer not judged yet (parsed triples accepted, else parse_error with the reason
     * the next round's prompt carries). Returns how many were judged.
     */
    async judgeRegistryAnswers(input: { runDir: string; runId: string }): Promise<{ judged: number; accepted: number }> {
      const ledger = ledgerAt(runPaths(input.runDir).ledger);
      let judged = 0;
      let accepted = 0;
      for (const c of ledger.calls(input.runId)) {
        if (c.phase !== 'registry' || c.status !== 'ok' || c.outcome !== null) continue;
        const stored = ledger.storedResponse(c)!;
        const parsed = parseRegistryResponse(stored.text, c.entry_id.slice(REGISTRY_PREFIX.length));
        ledger.judge(c, parsed.ok ? 'accepted' : 'parse_error', parsed.ok ? [] : [parsed.error]);
        judged += 1;
        if (parsed.ok) accepted += 1;
      }
      return { judged, accepted };
    },

    /** Registry phase, at the end: the accepted triples in domain order, and the domains that got none (their last error). */
    async registryTriples(input: { runDir: string; runId: string; domains: string[] }): Promise<{ triples: Omit<RegistryEntry, 'entry_id'>[]; failed_domains: { domain: string; error: string }[] }> {
      const ledger = ledgerAt(runPaths(input.runDir).ledger);
      const calls = ledger.calls(input.runId).filter((c) => c.phase === 'registry');
      const triples: Omit<RegistryEntry, 'entry_id'>[] = [];
      const failed: { domain: string; error: string }[] = [];
      for (const domain of input.domains) {
        const mine = calls.filter((c) => c.entry_id === `${REGISTRY_PREFIX}${domain}`);
        const ok = mine.find((c) => c.outcome === 'accepted');
        const parsed = ok ? parseRegistryResponse(ledger.storedResponse(ok)!.text, domain) : null;
        if (parsed?.ok) triples.push(...parsed.value);
        else failed.push({ domain, error: mine.at(-1)?.reasons[0] ?? mine.at(-1)?.error ?? 'no answer' });
      }
      return { triples, failed_domains: failed };
    },

    /** Answers in the ledger not judged yet (ids only: the workflow's history stays small). */
    async pendingJudgements(input: { runDir: string; runId: string }): Promise<{ entry_id: string; attempt_no: number }[]> {
      const calls = ledgerAt(runPaths(input.runDir).ledger).calls(input.runId);
      // Also an accepted answer whose entry file was never written (killed between the judgement and the file):
      // it is judged again from the ledger, as the real-time path does, never regenerated.
      const unwritten = (c: { entry_id: string; outcome: string | null }) => c.outcome === 'accepted' && readEntryResult(input.runDir, c.entry_id)?.status !== 'accepted';
      return calls.filter((c) => c.phase === PHASE && c.status === 'ok' && (c.outcome === null || unwritten(c))).map((c) => ({ entry_id: c.entry_id, attempt_no: c.attempt_no }));
    },

    /** Parses a stored answer (never calls a provider); a malformed one is judged parse_error here. */
    /**
     * After the last round: every entry without a final file gets one (rejected after its attempts, provider_error
     * after --max-attempts failed requests, budget_exhausted when the cap refused it), and the tally.
     */
    async finishEntries(input: RoundInput & { finishedAt: string; budgetStopped: boolean }): Promise<BatchTally> {
      const ledger = ledgerAt(runPaths(input.runDir).ledger);
      const tally: BatchTally = { total: 0, accepted: 0, rejected: 0, provider_error: 0, budget_exhausted: 0, unfinished: 0 };
      const calls = byEntry(ledger.calls(input.runId).filter((c) => c.phase === PHASE));
      for (const entry of registry(sourceOf(input)).order) {
        tally.total += 1;
        const done = readEntryResult(input.runDir, entry.entry_id);
        if (done && (done.status === 'accepted' || done.status === 'rejected')) {
          tally[done.status] += 1;
          continue;
        }
        const attempt = ledger.resumeAttempt(input.runId, PHASE, entry.entry_id);
        const failures = (calls.get(entry.entry_id) ?? []).filter((c) => c.attempt_no === attempt && c.status === 'error');
        let status: EntryStatus | null = null;
        let extra: AttemptSummary | undefined;
        if (attempt > input.maxAttempts) status = 'rejected';
        else if (failures.length >= input.maxAttempts) {
          status = 'provider_error';
          extra = { attempt_no: attempt, outcome: 'provider_error', reasons: [failures.at(-1)!.error ?? 'batch request failed'], model: input.settings.model, usage: null, cost_usd: null, latency_ms: null, reused: false };
        } else if (input.budgetStopped) {
          status = 'budget_exhausted';
          extra = { attempt_no: attempt, outcome: 'budget_exceeded', reasons: ['budget cap reached before this request could be batched (rerun with a higher cap to resume)'], model: input.settings.model, usage: null, cost_usd: null, latency_ms: null, reused: false };
        }
        if (!status) {
          tally.unfinished += 1;
          continue;
        }
        tally[status] += 1;
        writeBatchedEntry({ runDir: input.runDir, runId: input.runId, entryId: entry.entry_id, status, task: null, settings: input.settings, finishedAt: input.finishedAt, extra });
      }
      return tally;
    },
  };
}
export type BatchActivities = ReturnType<typeof createBatchActivities>;

/** An entry's attempt history from the ledger: each judged answer, then a final provider failure if that ended it. */
function history(runDir: string, runId: string, entryId: string): AttemptSummary[] {
  const calls = batchStoreAt(runPaths(runDir).ledger).entryCalls(runId, PHASE, entryId);
  const out: AttemptSummary[] = [];
  for (const c of calls) {
    if (c.status !== 'ok' || !c.outcome || c.outcome === 'provider_error') continue;
    out.push({
      attempt_no: c.attempt_no,
      outcome: c.outcome as AttemptSummary['outcome'],
      reasons: c.reasons,
      model: c.model,
      usage: { input_tokens: c.input_tokens ?? 0, output_tokens: c.output_tokens ?? 0, reasoning_tokens: c.reasoning_tokens ?? 0 },
      cost_usd: c.cost_usd,
      latency_ms: c.latency_ms,
      reused: false,
    });
  }
  return out;
}

export function writeBatchedEntry(input: { runDir: string; runId: string; entryId: string; status: EntryStatus; task: Task | null; settings: LlmSettings; finishedAt: string; extra?: AttemptSummary }): void {
  const attempts = history(input.runDir, input.runId, input.entryId);
  if (input.extra) attempts.push(input.extra);
  const result: EntryResult = { entry_id: input.entryId, status: input.status, task: input.task, attempts, generator: input.settings.provider, finished_at: input.finishedAt };
  writeEntryResult(input.runDir, result);
}

/** Parses a stored answer (never calls a provider); a malformed one is judged parse_error in the ledger. */
export function parseStoredEntry(input: { runDir: string; runId: string; source: EntrySource; entryId: string; attemptNo: number }): { ok: true; task: Task } | { ok: false; error: string } {
  const ledger = ledgerAt(runPaths(input.runDir).ledger);
  const key = { run_id: input.runId, phase: PHASE, entry_id: input.entryId, attempt_no: input.attemptNo };
  const stored = ledger.storedResponse(key);
  const entry = registry(input.source).entries.get(input.entryId);
  if (!stored || !entry) throw new InvalidInputError(`no stored answer for ${input.entryId} attempt ${input.attemptNo}`);
  const parsed = parseEntryResponse(stored.text, entry);
  if (!parsed.ok) {
    ledger.judge(key, 'parse_error', [parsed.error]);
    return { ok: false, error: parsed.error };
  }
  return { ok: true, task: parsed.value };
}
