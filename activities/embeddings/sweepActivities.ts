import { createHash } from 'node:crypto';
import { basename, join as join } from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { withHeartbeat } from '../generation/temporalErrors.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { selectConfigs } from '../../core/embeddings/registry.ts';
import { invocationFingerprint, prepareText, sideOf, type Side } from '../../core/embeddings/prepare.ts';
import type { EmbedStats } from '../../core/embeddings/stats.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { availability } from './availability.ts';
import { listServers } from './serverModels.ts';
import { EmbeddingCache, textHash } from './cache.ts';
import { embeddingCachePath, modelRoot as defaultModelRoot } from '../paths.ts';
import { loadRegistry } from './configs.ts';
import { embedItems } from './embedItems.ts';
import { loadBenchmarkItems } from './benchmarkItems.ts';
import { writeMatrix } from './matrix.ts';
import { lengthOrder } from '../../core/embeddings/lengthOrder.ts';
import { createProvider } from './providers/index.ts';
import { ProviderResponseError, ProviderUnavailableError, type EmbeddingProvider, type ProviderEnv } from './types.ts';
import type { RetryPolicy } from './retry.ts';
import { isHosted, ledgerBook, workerMayBeAlive } from './batchBook.ts';
import { closeEmbeddingLedgers, embeddingLedgerAt } from '../ledger/embeddingLedger.ts';
import { runPaths } from '../generation/runFiles.ts';
import { auditEmbeddingBatches, type EmbeddingTotals } from '../../core/generation/audit.ts';
import { createEmbedBatchActivities } from '../batch/embedBatch.ts';
import { closeEmbedBatchStores } from '../batch/embedStore.ts';

export interface EmbedActivitiesDeps {
  root: string;
  env: Readonly<Record<string, string | undefined>>;
  log?: (msg: string) => void;
  cachePath?: string;
  modelRoot?: string;
  baseUrls?: ProviderEnv['baseUrls'];
  retry?: RetryPolicy;
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

/** Texts per activity: several provider batches, so a 5,000-snippet corpus is tens of activities, not thousands. */
export const TEXTS_PER_ACTIVITY = 512;

/**
 * The sweep's activities (Temporal, `embed` queue). Providers are created once per worker and configuration and
 * reused across batches (a local model loads once).
 */
/** The running activity's cancellation (the sweep cancels a failed configuration's other batches); none outside one. */
function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

export function createEmbedActivities(deps: EmbedActivitiesDeps) {
  const modelRoot = deps.modelRoot ?? defaultModelRoot();
  const penv: ProviderEnv = { env: deps.env, modelRoot, baseUrls: deps.baseUrls };
  let cache: EmbeddingCache | null = null;
  const getCache = () => (cache ??= new EmbeddingCache(deps.cachePath ?? embeddingCachePath(deps.env)));
  const providers = new Map<string, Promise<EmbeddingProvider>>();
  const providerFor = (config: EmbeddingConfig) => {
    const key = `${config.config_id}\u0000${invocationFingerprint(config, 'query')}`;
    let p = providers.get(key);
    if (!p) {
      p = createProvider(config, penv);
      p.catch(() => providers.delete(key));
      providers.set(key, p);
    }
    return p;
  };
  const resolveRun = (runDir: string) => (runDir.startsWith('/') ? runDir : join(deps.root, runDir));

  return {
    // embed --batch: the same worker, cache and provider settings (activities/batch/embedBatch.ts).
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
        throw ApplicationFailure.create({ type: 'InvalidInputError', message: `${runDir}: no built benchmark (queries.jsonl, corpus.jsonl): ${(e as Error).message}`, nonRetryable: true });
      }
      // Requests a killed sweep of this run left in flight: no answer will come for them (lost, at their bound).
      const lost = embeddingLedgerAt(runPaths(runDir).ledger).reconcileStarted(runIdOf(runDir), workerMayBeAlive);
      if (lost) deps.log?.(`${runDir}: ${lost} embedding request(s) of a dead worker had no answer recorded: counted as lost (see \`audit\`)`);
      // A model its server does not list is unavailable here, with the reason, not a run of 404s.
      const planEnv: ProviderEnv = { ...penv, servers: await listServers(configs, penv) };
      const plans = configs.map((config): ConfigPlan => {
        if (config.provider === 'bm25') return { config, status: 'lexical', reason: 'scored lexically from the texts; no matrices', batches: [] };
        const a = availability(config, planEnv);
        if (!a.ok) return { config, status: 'unavailable', reason: a.detail, batches: [] };
        const batches: BatchPlan[] = [];
        for (const [side, list] of [['query', items.queries], ['document', items.corpus]] as const) {
          const step = Math.max(config.batch_size, Math.floor(TEXTS_PER_ACTIVITY / config.batch_size) * config.batch_size);
          for (let s = 0; s < list.length; s += step) batches.push({ side, start: s, end: Math.min(list.length, s + step) });
        }
        return { config, status: 'ready', reason: null, batches };
      });
      return { runDir, configs: plans, problems: [...reg.errors, ...items.problems], counts: { queries: items.queries.length, corpus: items.corpus.length } };
    },

    async embedBatch(input: { runDir: string; config: EmbeddingConfig; batch: BatchPlan }): Promise<EmbedStats> {
      const items = loadBenchmarkItems(input.runDir);
      const list = input.batch.side === 'query' ? items.queries : items.corpus;
      const slice = lengthOrdered(list).slice(input.batch.start, input.batch.end);
      try {
        // Heartbeats on a timer, not per batch: a provider's Retry-After wait or a slow batch is not a dead worker.
        const r = await withHeartbeat(() =>
          embedItems(input.config, input.batch.side, slice, {
            cache: getCache(),
            provider: () => providerFor(input.config),
            retry: deps.retry,
            signal: cancellationSignal(),
            log: deps.log,
            book: isHosted(input.config)
              ? ledgerBook(embeddingLedgerAt(runPaths(input.runDir).ledger), {
                  run_id: runIdOf(input.runDir),
                  sweep_id: sweepId(),
                  config: input.config,
                  fingerprint: invocationFingerprint(input.config, input.batch.side),
                  side: input.batch.side,
                })
              : undefined,
          }),
        );
        return r.stats;
      } catch (e) {
        // Retrying cannot fix a missing key or a malformed answer: fail this configuration now, with the reason.
        if (e instanceof ProviderUnavailableError || e instanceof ProviderResponseError) {
          throw ApplicationFailure.create({ type: 'NonRetryableProviderError', message: e.message, nonRetryable: true });
        }
        throw e;
      }
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

    async closeEmbedResources(): Promise<void> {
      for (const p of providers.values()) await (await p.catch(() => null))?.close?.();
      providers.clear();
      cache?.close();
      cache = null;
      closeEmbeddingLedgers();
      closeEmbedBatchStores();
    },
  };
}

export type EmbedActivities = ReturnType<typeof createEmbedActivities>;

/** The ledger's run id of a run directory (its name, as generation uses). */
const runIdOf = (runDir: string) => basename(runDir);

/** The sweep sending a request: its workflow id and run id (Temporal), or `local` when called outside an activity. */
function sweepId(): string {
  try {
    const w = Context.current().info.workflowExecution;
    return w ? `${w.workflowId}/${w.runId}` : 'local';
  } catch {
    return 'local';
  }
}

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
