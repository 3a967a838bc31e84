import { createHash } from 'node:crypto';
import { basename, join as join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { selectConfigs } from '../../core/embeddings/registry.ts';
import { invocationFingerprint, prepareText, sideOf, type Side } from '../../core/embeddings/prepare.ts';
import type { EmbedStats } from '../../core/embeddings/stats.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { EmbeddingCache, textHash } from './cache.ts';
import { embeddingCachePath, modelRoot as defaultModelRoot } from '../paths.ts';
import { loadRegistry } from './configs.ts';
import { embedItems } from './embedItems.ts';
import { loadBenchmarkItems } from './benchmarkItems.ts';
import { writeMatrix } from './matrix.ts';
import { lengthOrder } from '../../core/embeddings/lengthOrder.ts';
import type { ProviderEnv } from './types.ts';
import { textsPerSend } from '../../core/embeddings/wireLimits.ts';
import { decodeVectors } from './wireVectors.ts';
import type { SendResult } from './sendActivities.ts';
import { isHosted, ledgerBook, workerMayBeAlive } from './batchBook.ts';
import { closeEmbeddingLedgers, embeddingLedgerAt } from '../ledger/embeddingLedger.ts';
import { runPaths } from '../generation/runFiles.ts';
import { auditEmbeddingBatches, type EmbeddingTotals } from '../../core/generation/audit.ts';
import { createEmbedBatchActivities } from '../batch/embedBatch.ts';
import { closeEmbedBatchStores } from '../batch/embedStore.ts';
import { StopError } from '../faults.ts';

export interface EmbedActivitiesDeps {
  root: string;
  env: Readonly<Record<string, string | undefined>>;
  log?: (msg: string) => void;
  cachePath?: string;
  modelRoot?: string;
  baseUrls?: ProviderEnv['baseUrls'];
}

/** Positions [start, end) in the side's items ordered shortest first (`lengthOrdered`), so one activity holds texts of similar length. */
export interface BatchPlan {
  side: Side;
  start: number;
  end: number;
}

/**
 * A side's items shortest first (by characters; lengthOrder's ties keep benchmark order): the plan's ranges index
 * this order, so padding to the longest text of a batch stays small across the whole corpus, not only within
 * each activity's share of it. Every activity derives the same order from the same file.
 */
export function lengthOrdered<T extends { text: string }>(list: readonly T[]): T[] {
  return lengthOrder(list.map((x) => x.text.length)).map((i) => list[i]);
}

/**
 * `lengthOrdered` once per loaded list (loadBenchmarkItems memoises the lists): a hosted configuration reserves one
 * request at a time, so a 100k-text corpus would otherwise be sorted thousands of times.
 */
const ordered = new WeakMap<readonly object[], unknown[]>();
function lengthOrderedOnce<T extends { text: string }>(list: readonly T[]): T[] {
  let o = ordered.get(list) as T[] | undefined;
  if (!o) ordered.set(list, (o = lengthOrdered(list)));
  return o;
}

export interface ConfigPlan {
  config: EmbeddingConfig;
  status: 'ready' | 'unavailable' | 'lexical';
  reason: string | null;
  batches: BatchPlan[];
}

export interface EmbedPlan {
  runDir: string;
  configs: ConfigPlan[];
  /** Registry and benchmark problems (bad entries skipped, the rest goes on). */
  problems: string[];
  counts: { queries: number; corpus: number };
}

export interface ConfigResult {
  config_id: string;
  status: 'ok' | 'failed' | 'unavailable' | 'lexical';
  reason: string | null;
  stats: EmbedStats | null;
  files: string[];
  dims: number | null;
}

/** Texts per chunk (one child workflow): several provider batches, so a 5,000-snippet corpus is tens of chunks, not thousands. */
export const TEXTS_PER_ACTIVITY = 512;

/** One request of a reservation: its ledger row (hosted configurations only), the hashes and prepared texts it carries. */
export interface ReservedRequest {
  row: number | null;
  hashes: string[];
  texts: string[];
  /** Characters sent: the token estimate (characters / 4) where the provider reports no usage. */
  chars: number;
}

export interface Reservation {
  /** The chunk's counts, for the sweep's stats: its items, distinct texts and those the cache already held. */
  texts: number;
  unique_texts: number;
  cached: number;
  /**
   * What to send next: empty when the chunk is complete. At most what fits one send (core/embeddings/wireLimits.ts);
   * for a hosted configuration, one request.
   */
  requests: ReservedRequest[];
}

export interface StoreInput {
  runDir: string;
  config: EmbeddingConfig;
  side: Side;
  requests: Omit<ReservedRequest, 'texts'>[];
  result: SendResult;
}

/** What a store added to the sweep's stats (the answered requests). */
export type StoredStats = Pick<EmbedStats, 'embedded' | 'batches' | 'tokens_reported' | 'tokens_estimated' | 'cost_usd'>;

/**
 * The coordinator's side of the sweep (Temporal, on the default queue or a run's own coordinator queue): everything
 * that reads the run folder or writes the authoritative embedding cache and the run's ledger. Embed workers only
 * send (sendActivities.ts), so they need no shared folder: the coordinator reserves each request's ledger row
 * before the send is scheduled, and stores the vectors and usage it returns.
 */
export function createEmbedCoordinator(deps: EmbedActivitiesDeps) {
  const modelRoot = deps.modelRoot ?? defaultModelRoot();
  const penv: ProviderEnv = { env: deps.env, modelRoot, baseUrls: deps.baseUrls };
  let cache: EmbeddingCache | null = null;
  const getCache = () => (cache ??= new EmbeddingCache(deps.cachePath ?? embeddingCachePath(deps.env)));
  const resolveRun = (runDir: string) => (runDir.startsWith('/') ? runDir : join(deps.root, runDir));
  const ledgerOf = (runDir: string) => embeddingLedgerAt(runPaths(resolveRun(runDir)).ledger);

  return {
    // embed --batch: the provider holds the work; submitting, polling and ingesting are the coordinator's (activities/batch/embedBatch.ts).
    ...createEmbedBatchActivities({ penv, cache: getCache, log: deps.log }),

    async embedPlan(input: { runDir: string; configIds: string[] | null; configFiles?: string[] }): Promise<EmbedPlan> {
      const runDir = resolveRun(input.runDir);
      const reg = loadRegistry({ root: deps.root, files: input.configFiles, env: deps.env });
      let configs: EmbeddingConfig[];
      try {
        configs = selectConfigs(reg.entries, input.configIds);
      } catch (e) {
        throw ApplicationFailure.create({ type: 'InvalidInputError', message: (e as Error).message, nonRetryable: true });
      }
      let items;
      try {
        items = loadBenchmarkItems(runDir);
      } catch (e) {
        if (e instanceof StopError) throw e; // a damaged benchmark file (DamagedRunFileError): exit 5, not a usage error
        throw ApplicationFailure.create({ type: 'InvalidInputError', message: `${runDir}: no built benchmark (queries.jsonl, corpus.jsonl): ${(e as Error).message}`, nonRetryable: true });
      }
      // Requests a killed sweep of this run left in flight: no answer will come for them (lost, at their bound).
      const lost = embeddingLedgerAt(runPaths(runDir).ledger).reconcileStarted(runIdOf(runDir), workerMayBeAlive);
      if (lost) deps.log?.(`${runDir}: ${lost} embedding request(s) of a dead worker had no answer recorded: counted as lost (see \`audit\`)`);
      // Whether each can run (keys, models, servers) is the embed workers' to say (embedAvailability, withAvailability).
      const plans = configs.map((config): ConfigPlan => {
        if (config.provider === 'bm25') return { config, status: 'lexical', reason: 'scored lexically from the texts; no matrices', batches: [] };
        const batches: BatchPlan[] = [];
        for (const [side, list] of [['query', items.queries], ['document', items.corpus]] as const) {
          const step = Math.max(config.batch_size, Math.floor(TEXTS_PER_ACTIVITY / config.batch_size) * config.batch_size);
          for (let s = 0; s < list.length; s += step) batches.push({ side, start: s, end: Math.min(list.length, s + step) });
        }
        return { config, status: 'ready', reason: null, batches };
      });
      return { runDir, configs: plans, problems: [...reg.errors, ...items.problems], counts: { queries: items.queries.length, corpus: items.corpus.length } };
    },

    /**
     * The next send of a chunk: the texts of its range the authoritative cache still lacks (distinct, shortest
     * first), as many as fit one send, in requests of `batch_size`; for a hosted configuration each request's
     * ledger row is written now, before any worker may send it ("a ledger row before the request leaves").
     * Rows of this run still `started` that carried the same texts (an earlier try that never answered) become
     * `lost` here (EmbeddingLedger.startBatch).
     */
    async embedReserve(input: { runDir: string; config: EmbeddingConfig; batch: BatchPlan; sweep_id: string }): Promise<Reservation> {
      const runDir = resolveRun(input.runDir);
      const { config, batch } = input;
      const items = loadBenchmarkItems(runDir);
      const slice = lengthOrderedOnce(batch.side === 'query' ? items.queries : items.corpus).slice(batch.start, batch.end);
      const s = sideOf(config, batch.side);
      const fp = invocationFingerprint(config, batch.side);
      const unique = new Map<string, string>(); // hash -> prepared text, first occurrence order
      for (const it of slice) {
        const text = prepareText(s, it.text);
        const h = textHash(text);
        if (!unique.has(h)) unique.set(h, text);
      }
      const found = getCache().getMany(config.config_id, fp, [...unique.keys()]);
      const missing = [...unique.entries()].filter(([h]) => !found.has(h));
      // A hosted configuration sends one request at a time, so an answered request is stored (and its row
      // completed) before the next leaves: a kill loses at most the request in flight, never answers already paid.
      // An in-process model bills nothing: as many requests as fit one payload, for fewer round trips.
      const fits = textsPerSend(missing.map(([, t]) => Buffer.byteLength(t, 'utf8')), config.dimensions ?? 0);
      const take = isHosted(config) ? Math.min(fits, config.batch_size) : fits;
      const requests: ReservedRequest[] = [];
      for (let i = 0; i < take; i += config.batch_size) {
        const part = missing.slice(i, Math.min(take, i + config.batch_size));
        requests.push({ row: null, hashes: part.map(([h]) => h), texts: part.map(([, t]) => t), chars: part.reduce((n, [, t]) => n + t.length, 0) });
      }
      if (requests.length && isHosted(config)) {
        const book = ledgerBook(ledgerOf(runDir), { run_id: runIdOf(runDir), sweep_id: input.sweep_id, config, fingerprint: fp, side: batch.side });
        for (const r of requests) r.row = book.sending(r.texts, r.hashes);
      }
      return { texts: slice.length, unique_texts: unique.size, cached: found.size, requests };
    },

    /**
     * What a send returned: the answered requests' vectors into the authoritative cache and their usage into
     * their ledger rows, the failed one's reason into its row, and the rows of requests never sent removed.
     */
    async embedStore(input: StoreInput): Promise<StoredStats> {
      const runDir = resolveRun(input.runDir);
      const { config, result } = input;
      const fp = invocationFingerprint(config, input.side);
      const ledger = isHosted(config) ? ledgerOf(runDir) : null;
      const book = ledger ? ledgerBook(ledger, { run_id: runIdOf(runDir), sweep_id: '', config, fingerprint: fp, side: input.side }) : null;
      const stats: StoredStats = { embedded: 0, batches: 0, tokens_reported: 0, tokens_estimated: 0, cost_usd: 0 };
      const price = config.price_usd_per_million_tokens ?? 0;
      result.answered.forEach((a, i) => {
        const req = input.requests[i];
        const vectors = decodeVectors(a.vectors, a.dims, req.hashes.length);
        getCache().putMany(config.config_id, fp, req.hashes.map((hash, j) => ({ hash, vector: vectors[j] })));
        if (req.row != null) book!.answered(req.row, req.chars, a.tokens, a.latency_ms, result.worker);
        // The sweep's stats by the ledger's rule: characters / 4 where the provider reports no usage.
        const estimated = a.tokens == null ? Math.ceil(req.chars / 4) : 0;
        stats.tokens_reported += a.tokens ?? 0;
        stats.tokens_estimated += estimated;
        stats.cost_usd += ((a.tokens ?? estimated) * price) / 1e6;
        stats.batches += 1;
        stats.embedded += req.hashes.length;
      });
      const f = result.failure;
      if (f && ledger) {
        const row = input.requests[f.index]?.row;
        if (row != null) book!.failed(row, { http_status: f.http_status, message: f.message }, f.latency_ms);
        ledger.dropUnsent(input.requests.slice(f.index + 1).flatMap((r) => (r.row == null ? [] : [r.row])));
      }
      return stats;
    },

    /** A send that never returned (its worker died, or it was cancelled): its reserved rows may have been billed, so they are lost at their bound. */
    async embedRelease(input: { runDir: string; rows: number[]; reason: string }): Promise<number> {
      return input.rows.length ? ledgerOf(input.runDir).loseStarted(input.rows, input.reason) : 0;
    },

    async writeEmbeddingMatrices(input: { runDir: string; config: EmbeddingConfig }): Promise<{ files: string[]; dims: number }> {
      const items = loadBenchmarkItems(input.runDir);
      const config = input.config;
      const outDir = join(input.runDir, 'embeddings', config.config_id);
      const files: string[] = [];
      for (const [side, name, list] of [['query', 'queries', items.queries], ['document', 'corpus', items.corpus]] as const) {
        const { vectors } = await embedItems(config, side, list, {
          cache: getCache(),
          provider: async () => {
            throw ApplicationFailure.create({ type: 'InvalidInputError', message: `${config.config_id}: ${name} not all embedded yet`, nonRetryable: true });
          },
        });
        const dims = config.dimensions!;
        const data = new Float32Array(list.length * dims);
        vectors.forEach((v, i) => data.set(v, i * dims));
        // Hash of every (id, exact text sent) in order: the scoring step can tell matrices from different inputs apart.
        const h = createHash('sha256');
        for (const it of list) h.update(it.id).update('\u0000').update(textHash(prepareText(sideOf(config, side), it.text))).update('\n');
        const written = writeMatrix(join(outDir, name), { ids: list.map((x) => x.id), dims, data }, {
          config_id: config.config_id,
          config: JSON.stringify(config),
          provider: config.provider,
          model: config.model,
          model_revision: config.model_revision ?? '',
          model_package: config.local?.package ?? '',
          side,
          dims: String(dims),
          normalized: String(config.normalize),
          similarity: config.similarity,
          texts_sha256: h.digest('hex'),
          rows: String(list.length),
        });
        files.push(written.arrow, written.parquet);
      }
      return { files, dims: config.dimensions! };
    },

    /**
     * The sweep's report. `stats` are this sweep's; `ledger` is what every sweep of this run paid per configuration
     * (a killed one's answered batches and lost requests included), and `texts_paid_elsewhere` the texts its
     * matrices hold that no request of this run paid for (found in the shared cache, paid by another run). The
     * totals come from the ledger, so a rerun after a kill no longer shows what the killed sweep paid as free.
     */
    async writeEmbedReport(input: { runDir: string; plan: Omit<EmbedPlan, 'configs'>; results: ConfigResult[]; configs?: EmbeddingConfig[] }): Promise<string> {
      const run_id = runIdOf(input.runDir);
      const ledger = embeddingLedgerAt(runPaths(input.runDir).ledger);
      const audit = auditEmbeddingBatches(ledger.batches(run_id));
      const items = input.results.some((r) => r.status === 'ok') ? loadBenchmarkItems(input.runDir) : null;
      const configs = input.results.map((r) => {
        const totals = audit.configs.find((c) => c.config_id === r.config_id) ?? null;
        const cfg = input.configs?.find((c) => c.config_id === r.config_id);
        return { ...r, ledger: totals, texts_paid_elsewhere: r.status === 'ok' && items && cfg && isHosted(cfg) ? paidElsewhere(ledger, run_id, cfg, items) : null };
      });
      const path = join(input.runDir, 'embeddings', 'report.json');
      writeJsonAtomic(path, {
        run_dir: input.runDir,
        counts: input.plan.counts,
        problems: input.plan.problems,
        total_cost_usd: audit.totals.cost_usd,
        total_tokens: audit.totals.tokens_reported + audit.totals.tokens_estimated,
        lost_requests: audit.totals.lost_batches,
        lost_cost_usd_max: audit.totals.lost_cost_usd_max,
        this_sweep_cost_usd: input.results.reduce((a, r) => a + (r.stats?.cost_usd ?? 0), 0),
        configs,
      });
      return path;
    },

    async closeEmbedCoordinator(): Promise<void> {
      cache?.close();
      cache = null;
      closeEmbeddingLedgers();
      closeEmbedBatchStores();
    },
  };
}

export type EmbedCoordinatorActivities = ReturnType<typeof createEmbedCoordinator>;

/** The ledger's run id of a run directory (its name, as generation uses). */
const runIdOf = (runDir: string) => basename(runDir);


/** Distinct texts of the benchmark under `config` that no answered request of this run paid for. */
function paidElsewhere(ledger: ReturnType<typeof embeddingLedgerAt>, run_id: string, config: EmbeddingConfig, items: ReturnType<typeof loadBenchmarkItems>): number {
  let n = 0;
  for (const [side, list] of [['query', items.queries], ['document', items.corpus]] as const) {
    const paid = ledger.paidHashes(run_id, config.config_id, invocationFingerprint(config, side));
    const s = sideOf(config, side);
    const seen = new Set<string>();
    for (const it of list) {
      const h = textHash(prepareText(s, it.text));
      if (!seen.has(h) && !paid.has(h)) n++;
      seen.add(h);
    }
  }
  return n;
}

export type { EmbeddingTotals };
