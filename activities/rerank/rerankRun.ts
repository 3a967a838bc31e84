import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { RerankConfig } from '../../schemas/rerankConfig.ts';
import { textHash, type EmbeddingCache } from '../embeddings/cache.ts';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from '../embeddings/retry.ts';
import type { ProviderEnv } from '../embeddings/types.ts';
import { EXIT_CODES, StopError } from '../faults.ts';
import { restrictQueries } from '../scoring/benchmark.ts';
import { discoverConfigs, type ImportManifest } from '../scoring/configs.ts';
import { loadRunBenchmark, targetDir, writeRankingsFolder } from '../scoring/importConfig.ts';
import { rankConfig } from '../scoring/rankConfig.ts';
import { RANK_DEPTH } from '../../core/ranking/rank.ts';
import type { Reranker } from './providers.ts';
import { booked, rerankCostMax } from './requestBook.ts';

export interface RerankOptions {
  runDir: string;
  reranker: RerankConfig;
  /** The first-stage configuration of the run whose top `depth` is reordered (any kind: dense, BM25, imported). */
  over: string;
  depth: number;
  /** Configuration id of the result (default `<over>+<reranker_id>`). */
  name?: string;
  replace?: boolean;
  /** Scores by (reranker, invocation, query text, snippet text): a rerun sends nothing it already has. */
  cache: EmbeddingCache;
  /** Created only when a score is missing from the cache. */
  scorer: () => Promise<Reranker>;
  retry?: RetryPolicy;
  log?: (msg: string) => void;
}

/** What one answered request cost at the reranker's price: its tokens, or its search units. */
function billedCost(r: RerankConfig, res: { tokens: number | null; search_units: number | null }): number {
  if (!r.price_usd || !r.price_unit) return 0;
  return r.price_unit === 'million_tokens' ? ((res.tokens ?? 0) * r.price_usd) / 1e6 : ((res.search_units ?? 0) * r.price_usd) / 1000;
}

/** Depth below which exec@10 and the tie-aware metrics would read unreranked positions. */
export const MIN_RERANK_DEPTH = 10;

/**
 * `execretrieval rerank`: a second stage over any first stage. The first stage is ranked exactly as `score` ranks it
 * (rankConfig), its top `depth` snippets per query are sent to the reranker with the query text, and the reranker's
 * scores become a configuration of the run (a rankings folder, like an imported run, with import.json saying which
 * reranker over which first stage). `score` then executes, scores and reports it like any other configuration; the
 * report puts it beside its first stage with a paired test (core/report/rerankStage.ts). Snippets below `depth` are not
 * reranked: down to the first stage's listed depth (RANK_DEPTH) they keep its order, below every reranked one (issue
 * 37: left tied, they moved canonical_rank, deception and tie_rate even where the reranker changed nothing); past it
 * they tie (as an imported run's unlisted items).
 * Scores are stored as float32 (the cache's width) whether they came from the provider or the cache, so a rerun ranks
 * exactly as the first run did.
 */
export async function rerankRun(opts: RerankOptions): Promise<{ dir: string; manifest: ImportManifest }> {
  const usage = (m: string) => new StopError(m, EXIT_CODES.usage);
  if (!Number.isInteger(opts.depth) || opts.depth < MIN_RERANK_DEPTH) throw usage(`--depth ${opts.depth}: rerank at least the top ${MIN_RERANK_DEPTH} (the executed top list)`);
  const name = opts.name ?? `${opts.over}+${opts.reranker.reranker_id}`;
  const dir = targetDir(opts.runDir, name, opts.replace ?? false);
  const loaded = loadRunBenchmark(opts.runDir);
  const { configs, missing } = discoverConfigs(opts.runDir, { only: [opts.over] });
  if (missing.length) throw usage(`--over ${opts.over}: no such configuration in ${join(opts.runDir, 'embeddings')} (nor bm25)`);
  const source = configs[0];
  const bench = source.covers ? restrictQueries(loaded, source.covers) : loaded;
  const rankings = await rankConfig(bench, source, Math.max(opts.depth, RANK_DEPTH));
  const r = opts.reranker;
  const fp = JSON.stringify([r.provider, r.model, r.query_template, r.max_tokens_per_doc]);
  const cacheId = `rerank:${r.reranker_id}`;
  let scorer: Reranker | null = null;
  const stats = { pairs: 0, cached: 0, requests: 0, tokens: 0, search_units: 0 };
  const rows: { query_id: string; corpus_id: string; score: number }[] = [];
  const [before, after] = r.query_template.split('{text}');
  try {
    for (let qi = 0; qi < rankings.length; qi++) {
      const query = before + bench.queries[qi].query + after;
      const listed = Array.from(rankings[qi].top);
      const top = listed.slice(0, opts.depth);
      const docs = top.map((c) => bench.corpus[c].code);
      // The pair's key: the exact query text sent and the snippet, hashed apart so neither can spill into the other.
      const keys = docs.map((d) => createHash('sha256').update(textHash(query)).update(textHash(d)).digest('hex'));
      const found = opts.cache.getMany(cacheId, fp, keys);
      stats.pairs += docs.length;
      stats.cached += found.size;
      const todo = docs.map((_, i) => i).filter((i) => !found.has(keys[i]));
      for (let b = 0; b < todo.length; b += r.batch_size) {
        const idx = todo.slice(b, b + r.batch_size);
        scorer ??= await opts.scorer();
        const s = scorer;
        const sent = idx.map((i) => docs[i]);
        // A local scorer sends nothing anywhere: only hosted requests are ledger rows.
        const send = r.provider === 'local-embedding'
          ? () => s.rerank(query, sent)
          : () => booked(
              { runDir: opts.runDir, sweep_id: 'rerank', config_id: cacheId, fingerprint: fp, side: 'rerank', provider: r.provider, model: r.model },
              sent, idx.map((i) => keys[i]), rerankCostMax(query, sent, r.price_usd, r.price_unit),
              () => s.rerank(query, sent),
              (res) => ({ tokens: res.tokens, cost_usd: billedCost(r, res) }),
            );
        const res = await withRetry(send, opts.retry ?? DEFAULT_RETRY, (e) =>
          opts.log?.(`${r.reranker_id}: ${bench.queries[qi].query_id}: ${e.info.status ?? 'connection error'}, retry ${e.attempt} in ${Math.round(e.delayMs)} ms`),
        );
        stats.requests++;
        stats.tokens += res.tokens ?? 0;
        stats.search_units += res.search_units ?? 0;
        const put = idx.map((i, j) => ({ hash: keys[i], vector: Float32Array.of(res.scores[j]) }));
        opts.cache.putMany(cacheId, fp, put);
        for (const p of put) found.set(p.hash, p.vector);
      }
      const qid = bench.queries[qi].query_id;
      const scores = top.map((_, i) => found.get(keys[i])![0]);
      top.forEach((c, i) => rows.push({ query_id: qid, corpus_id: bench.corpus[c].corpus_id, score: scores[i] }));
      // The rest of the first stage's list, in its order, each strictly below every reranked score (whole steps:
      // exact in float64 and float32 alike for any realistic score).
      const floor = Math.floor(Math.min(...scores)) - 1;
      listed.slice(opts.depth).forEach((c, i) => rows.push({ query_id: qid, corpus_id: bench.corpus[c].corpus_id, score: floor - i }));
      opts.log?.(`reranked ${bench.queries[qi].query_id} (${qi + 1}/${rankings.length})`);
    }
  } finally {
    await scorer?.close?.();
  }
  const manifest: ImportManifest = {
    config_id: name,
    kind: 'rerank',
    sources: [],
    rows: rows.length,
    n_queries: rankings.length,
    covers: source.covers ? [...source.covers] : null,
    rerank: { reranker_id: r.reranker_id, provider: r.provider, model: r.model, over: opts.over, depth: opts.depth, ...stats },
  };
  writeRankingsFolder(dir, rows, manifest);
  return { dir, manifest };
}
