import { DEFAULT_SEED } from '../../schemas/runConfig.ts';
import { join } from 'node:path';
import type { QueryRanking } from '../../core/ranking/rank.ts';
import { executionDepth, scoreQuery } from '../../core/metrics/score_query.ts';
import { RANK_DEPTH } from '../../core/ranking/rank.ts';
import { tieKeyOfSeed, tieRuleText } from '../../core/ranking/tieKey.ts';
import { manifestLayers, type Oracle } from '../exec/types.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { benchmarkDirOf } from '../embeddings/benchmarkItems.ts';
import { loadBenchmark, restrictQueries, type ScoringRejection } from './benchmark.ts';
import { discoverConfigs, querySubset } from './configs.ts';
import { benchmarkNameFacts, executeTopK, pairKey } from './execute.ts';
import { rankConfig } from './rankConfig.ts';
import { rankingRows, writeRankingsParquet, type RankingRow } from './rankingsParquet.ts';
import { scoringDir, writeExecutionsParquet, writeScoredConfig } from './scoringFiles.ts';
import { writeReport, type ReportOptions, type ReportResult } from './writeReport.ts';
import { countingOracle } from '../exec/countingOracle.ts';
import type { TimeBreakdown } from '../../core/timing/breakdown.ts';
import { yieldToLoop } from './yieldToLoop.ts';
import { StopError } from '../faults.ts';

export interface ScoreOptions extends Partial<ReportOptions> {
  runDir: string;
  oracle: Oracle;
  /** Restrict to (and order by) these configuration ids. */
  configs?: readonly string[];
  bm25?: boolean;
  log?: (msg: string) => void;
  onExecProgress?: (done: number, total: number) => void;
  /** Execute the pairs the not_defined rule would judge without running (the benchmark's baseline). */
  runNotDefined?: boolean;
  /** Key of the ranking tie order (core/ranking/tieKey.ts); default: the run seed as text. */
  tieKey?: string;
}

export interface ScoringManifest {
  benchmark: string;
  n_queries: number;
  n_corpus: number;
  configs: string[];
  failed_configs: { config_id: string; error: string }[];
  missing_configs: string[];
  rejections: ScoringRejection[];
  /** oracle_errors is always empty: a fault stops `score` (InfraFault) before anything is written. */
  executions: { pairs: number; cached: number; not_defined: number; oracle_errors: { query_id: string; corpus_id: string; message: string }[] };
  /** The bootstrap settings the report was first built with (summary.json records those of the latest report). */
  bootstrap: { replicates: number; seed: number; alpha: number };
  /** The sandbox's isolation layers in force for this run's executions (manifestLayers), null when the oracle reports none. */
  sandbox_layers: Record<string, boolean | number | string> | null;
  /**
   * How the rankings broke exact score ties: the key of the keyed hash (core/ranking/tieKey.ts) and the rule in
   * words. With the key anyone can rebuild the order; another key is another equally blind order. Absent in
   * runs scored before issue 28 (their rankings used 32-bit FNV-1a of the id).
   */
  tie_break?: { key: string; rule: string };
  /** Set when a partial import limited scoring to the queries it covers: those ids, and the imports that asked. */
  query_subset?: { query_ids: string[]; by: string[]; /** The benchmark's queries in all. */ of?: number } | null;
}

/**
 * `execretrieval score <run>`: rank every configuration, execute every top-10 snippet against the query's
 * tests through the oracle, compute per-query metrics and deception records, write them, then the report.
 * A configuration that cannot be ranked (missing vectors, bad file) fails alone and is listed in the manifest.
 */
export async function scoreRun(opts: ScoreOptions): Promise<{ manifest: ScoringManifest; report: ReportResult; timings: TimeBreakdown }> {
  const log = opts.log ?? (() => {});
  const t0 = performance.now();
  const clock = () => (performance.now() - t0) / 1000;
  const { oracle, counts } = countingOracle(opts.oracle);
  const loaded = loadBenchmark(benchmarkDirOf(opts.runDir));
  for (const r of loaded.rejections) log(`rejected ${r.file}${r.line ? `:${r.line}` : ''}${r.record ? ` ${r.record}` : ''} ${r.field}: ${r.message}`);
  const { configs, missing } = discoverConfigs(opts.runDir, { only: opts.configs, bm25: opts.bm25 });
  for (const m of missing) log(`config ${m}: no matrices under embeddings/${m}/ (skipped)`);
  // A partial import (`import-rankings --partial`) is compared on the queries it covers: every configuration is.
  const subset = querySubset(configs, loaded.queries.map((q) => q.query_id));
  if (subset) log(`scoring every configuration on the ${subset.query_ids.length} of ${loaded.queries.length} queries that ${subset.by.join(', ')} cover${subset.by.length > 1 ? '' : 's'} (partial import)`);
  if (subset && subset.query_ids.length === 0) throw new Error(`score: the partial imports ${subset.by.join(', ')} cover no query in common; score them apart with --configs`);
  const bench = subset ? restrictQueries(loaded, subset.query_ids) : loaded;
  const corpusIds = bench.corpus.map((c) => c.corpus_id);
  const tieKey = opts.tieKey ?? tieKeyOfSeed(opts.seed ?? DEFAULT_SEED);
  // The not_defined facts are a Python child that needs only the benchmark: started now, it runs on the other
  // core while this thread ranks (execute.ts benchmarkNameFacts). Awaited by executeTopK; a failure surfaces there.
  const nameFacts = opts.runNotDefined ? undefined : benchmarkNameFacts(bench);
  nameFacts?.catch(() => {}); // ranking may throw first; the rejection is still delivered to executeTopK's await
  // The fork servers start beside ranking too, instead of when the first top-10 snippet is run.
  void opts.oracle.warm?.();
  const tRank = clock();
  const ranked: { config_id: string; rankings: QueryRanking[] }[] = [];
  const failed: ScoringManifest['failed_configs'] = [];
  // The rows of each rankings file written below, for the report (which would otherwise read them back).
  const rankingFiles = new Map<string, RankingRow[]>();
  for (const source of configs) {
    // Between configurations (and below, between scoring steps): heartbeats and I/O get their turn (yieldToLoop.ts).
    await yieldToLoop();
    try {
      const rankings = await rankConfig(bench, source, RANK_DEPTH, tieKey);
      const file = join(opts.runDir, 'rankings', `${source.config_id}.parquet`);
      const rows = rankingRows(rankings, corpusIds);
      writeRankingsParquet(file, source.config_id, rows, tieKey);
      rankingFiles.set(file, rows);
      ranked.push({ config_id: source.config_id, rankings });
      log(`ranked ${source.config_id}`);
    } catch (err) {
      // A damaged file of the run (or any fault) stops the step: it must not become one configuration's failure.
      if (err instanceof StopError) throw err;
      failed.push({ config_id: source.config_id, error: (err as Error).message });
      log(`config ${source.config_id} failed: ${(err as Error).message}`);
    }
  }
  if (ranked.length === 0) throw new Error(`score: no configuration could be ranked (${failed.map((f) => `${f.config_id}: ${f.error}`).join('; ') || 'none found'})`);

  // Each ranking's top-10 plus the rest of the tied group at rank 10 (the tie-aware metrics need its verdicts).
  const toExecute = ranked.map((r) => r.rankings.map((q) => ({ ...q, top: q.top.subarray(0, executionDepth(q)) })));
  const tExec = clock();
  const exec = await executeTopK(bench, toExecute, oracle, { depth: RANK_DEPTH, onProgress: opts.onExecProgress, runNotDefined: opts.runNotDefined, nameFacts });
  const tScore = clock();
  log(`judged ${exec.pairs} distinct (query, snippet) pairs: ${exec.not_defined} not_defined (not run), ${exec.cached} from cache`);

  const scored: { config_id: string; queries: ReturnType<typeof scoreQuery>[] }[] = [];
  for (const { config_id, rankings } of ranked) {
    await yieldToLoop();
    scored.push({ config_id, queries: rankings.map((r, q) => {
      const query = bench.queries[q];
      return scoreQuery(r, {
        corpusIds,
        bugTypeOf: (c) => bench.corpus[c].bug_type,
        domain: query.domain,
        ...(query.language ? { language: query.language } : {}),
        relevant: new Set(query.correct_corpus_ids),
        verdict: (c) => {
          const res = exec.results.get(pairKey(q, c));
          if (!res) throw new Error(`internal: no execution for ${query.query_id} × ${corpusIds[c]}`);
          return { passed: res.passed, outcomes: res.outcomes };
        },
      });
    }) });
  }
  for (const s of scored) {
    await yieldToLoop();
    writeScoredConfig(opts.runDir, s.config_id, s.queries);
  }
  await yieldToLoop();
  const executionRows = [...exec.results].map(([k, r]) => {
    const [q, c] = k.split(':').map(Number);
    return { query_id: bench.queries[q].query_id, corpus_id: corpusIds[c], passed: r.passed, outcomes: r.outcomes, cached: r.cached };
  });
  writeExecutionsParquet(join(scoringDir(opts.runDir), 'executions.parquet'), executionRows);
  const bootstrap = { replicates: opts.replicates ?? 5000, seed: opts.seed ?? DEFAULT_SEED, alpha: opts.alpha ?? 0.05 };
  const manifest: ScoringManifest = {
    benchmark: join(opts.runDir, 'benchmark'),
    n_queries: bench.queries.length,
    n_corpus: bench.corpus.length,
    configs: scored.map((s) => s.config_id),
    failed_configs: failed,
    missing_configs: missing,
    rejections: bench.rejections,
    executions: { pairs: exec.pairs, cached: exec.cached, not_defined: exec.not_defined, oracle_errors: [] },
    bootstrap,
    sandbox_layers: opts.oracle.layers ? manifestLayers(await opts.oracle.layers()) : null,
    tie_break: { key: tieKey, rule: tieRuleText(tieKey) },
    query_subset: subset ? { ...subset, of: loaded.queries.length } : subset,
  };
  writeJsonAtomic(join(scoringDir(opts.runDir), 'manifest.json'), manifest);
  const tReport = clock();
  const report = await writeReport(opts.runDir, { ...bootstrap, ...(opts.configFiles ? { configFiles: opts.configFiles } : {}) }, { bench, rankings: rankingFiles, executions: executionRows });
  const timings: TimeBreakdown = {
    phases: [
      ['load', tRank],
      ['rank', tExec - tRank],
      ['execute top 10', tScore - tExec],
      ['score + write', tReport - tScore],
      ['report', clock() - tReport],
    ],
    total_s: clock(),
    executions: { skipped: exec.not_defined, ...counts() },
  };
  // Where the time went: the one scoring file that differs from run to run.
  writeJsonAtomic(join(scoringDir(opts.runDir), 'timings.json'), timings);
  return { manifest, report, timings };
}

/** Default bootstrap seed (recorded in summary.json; change it with --seed). */
