import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { computeStatistics, type StatisticsResult } from '../../core/report/statistics.ts';
import { buildMarkdown } from '../../core/report/markdown.ts';
import { buildHtml } from '../../core/report/html.ts';
import { buildDrilldown } from '../../core/report/drilldown.ts';
import { PRNG_NAME } from '../../core/stats/prng.ts';
import { writeFileAtomic, writeJsonAtomic } from '../storage/atomic.ts';
import { writePairwiseParquet } from './pairwiseParquet.ts';
import { benchmarkDirOf } from '../embeddings/benchmarkItems.ts';
import { loadBenchmark, restrictQueries, type LoadedBenchmark } from './benchmark.ts';
import { writeBeirExport, writeBeirResults, writeExecQrels, writeTrecQrels, writeTrecRun, type ExportRanking } from './exports.ts';
import { readRankingsParquet, type RankingRow } from './rankingsParquet.ts';
import { readExecutionsParquet, readScoredConfigs, reportDir, scoringDir, writeScoresParquet, type ExecutionRow } from './scoringFiles.ts';
import { definitionsByName } from '../../core/report/glossary.ts';
import { buildLeaderboard, leaderboardCsv } from '../../core/report/leaderboard.ts';
import type { ScoringManifest } from './scoreRun.ts';
import { DEFAULT_DENSITY, densityScaling } from '../../core/report/density.ts';
import { rankResolution } from '../../core/report/resolution.ts';
import { secondStage, type SecondStageRow } from '../../core/report/secondStage.ts';
import { EXEC_DEPTH } from '../../core/metrics/per_query.ts';
import type { ScoredQuery } from '../../core/report/types.ts';
import { deceptionByEditPosition, type EditPositionRow } from '../../core/report/editPosition.ts';
import { unseenEdits } from './editPosition.ts';
import { loadRegistry } from '../embeddings/configs.ts';
import { modelRoot, projectRoot } from '../paths.ts';
import type { CorpusRecord } from '../../schemas/benchmark.ts';
import { headlineVerdict, sortedConfigs, WINNER_METRIC } from '../../core/report/headline.ts';
import { MD_PAIRWISE } from '../../core/report/markdown.ts';
import { yieldToLoop } from './yieldToLoop.ts';
import { rerankStage, type RerankStageRow } from '../../core/report/rerankStage.ts';
import { readImportManifest } from './configs.ts';

export interface ReportOptions {
  replicates: number;
  seed: number;
  alpha: number;
  /** Extra embedding-registry files (`--config-file`): their configurations are described like ours. */
  configFiles?: readonly string[];
}

export interface ReportResult {
  dir: string;
  stats: StatisticsResult;
  files: string[];
}

/**
 * `execretrieval report <run>`: everything people read, from what `score` stored (no execution, no ranking):
 * summary.json, scores.parquet, leaderboard.{csv,json}, pairwise.parquet, report.md, report.html under runs/<id>/report/, and the exports under
 * runs/<id>/export/ (BEIR layout, TREC runs + qrels). Asynchronous only to give the event loop a turn between its
 * synchronous stretches (yieldToLoop.ts: a scoring activity's heartbeats); what it computes and writes is the same.
 */
function queryDocstringCounts(queries: readonly { metadata?: Record<string, unknown> | null }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const q of queries) {
    const v = q.metadata?.query_docstring;
    if (typeof v === 'string') out[v] = (out[v] ?? 0) + 1;
  }
  return out;
}

export async function writeReport(runDir: string, opts: ReportOptions, loaded: { bench?: LoadedBenchmark; rankings?: ReadonlyMap<string, RankingRow[]>; executions?: readonly ExecutionRow[] } = {}): Promise<ReportResult> {
  const manifestPath = join(scoringDir(runDir), 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath} not found: run \`execretrieval score --run ${runDir}\` first`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ScoringManifest;
  const configs = readScoredConfigs(runDir, manifest.configs);
  // `score` hands over the benchmark it has just loaded and validated from the same files (0.7 s of CPU for MBPP).
  const full = loaded.bench ?? loadBenchmark(benchmarkDirOf(runDir));
  // A partial import limited scoring to some queries (scoreRun.ts): the report and exports cover the same ones.
  const bench = !loaded.bench && manifest.query_subset ? restrictQueries(full, manifest.query_subset.query_ids) : full;
  // Each rankings file is read once: the second stage and the exports both need BM25's. `score` hands over the
  // rows of the files it has just written (rankingsParquet.ts rankingRows, what reading them gives back).
  const rankingsRead = new Map<string, RankingRow[]>(loaded.rankings ?? []);
  const rankingsOf = (file: string) => rankingsRead.get(file) ?? rankingsRead.set(file, readRankingsParquet(file)).get(file)!;
  await yieldToLoop();
  const stats = computeStatistics(configs, opts);
  const dir = reportDir(runDir);
  const run = runDir.split('/').filter(Boolean).pop() ?? runDir;
  // The paper's analyses that need no new data (docs/metrics.md: density_scaling, rank_resolution).
  const density: ReturnType<typeof densityScaling>[] = [];
  for (const c of configs) {
    await yieldToLoop();
    density.push(densityScaling(c.config_id, c.queries, { ...DEFAULT_DENSITY, seed: opts.seed }, opts));
  }
  await yieldToLoop();
  const resolution = rankResolution(sortedConfigs(stats), stats.pairwise, MD_PAIRWISE, stats.n_queries, opts.alpha);
  await yieldToLoop();
  const second_stage = secondStageRows(runDir, configs, opts, rankingsOf);
  await yieldToLoop();
  const edit_position = await editPositionRows(configs, bench.corpus, opts);
  const rerank = rerankRows(runDir, configs, opts);

  const summary = {
    run,
    n_queries: stats.n_queries,
    configs: stats.configs,
    failed_configs: manifest.failed_configs,
    missing_configs: manifest.missing_configs,
    rejected_records: manifest.rejections.length,
    // Queries by what the importer did with a query taken from the code's docstring (removed from the code, kept,
    // not_in_code: query metadata.query_docstring, docs/check-programs.md); {} when no query came from one.
    query_docstrings: queryDocstringCounts(bench.queries),
    executions: { pairs: manifest.executions.pairs, cached: manifest.executions.cached, oracle_errors: manifest.executions.oracle_errors.length },
    bootstrap: {
      replicates: opts.replicates,
      seed: opts.seed,
      prng: PRNG_NAME,
      alpha: opts.alpha,
      interval: 'percentile (numpy type-7 quantiles) over query-level resamples shared by all configurations',
    },
    tests: {
      binary: 'exact McNemar (two-sided binomial on discordant b, c), Holm across all pairs per metric',
      all: 'paired bootstrap difference A − B with percentile interval',
    },
    ties: {
      // Runs scored before issue 28 have no tie_break in their manifest: their rankings used 32-bit FNV-1a.
      rule: `rankings break exact score ties by ${manifest.tie_break ? `a keyed hash: ${manifest.tie_break.rule}` : '32-bit FNV-1a of corpus_id (scored before the keyed order)'} (core/ranking/topk.ts); _ta metrics average over every order of each tied group`,
      key: manifest.tie_break?.key ?? null,
      // Queries whose tied group at rank 10 reaches the end of the stored top list (its unseen members are not in the _ta values).
      truncated_groups: Object.fromEntries(configs.map((c) => [c.config_id, c.queries.filter((q) => q.ties?.truncated).length])),
    },
    // The headline's verdict (core/report/headline.ts): sorted by the tie-aware exec@1, a winner only when it beats
    // every other configuration on settled outcomes; `stable` holds those comparisons (core/stats/stablePairwise.ts).
    headline: { sorted_by: WINNER_METRIC, ...headlineVerdict(stats), stable: stats.stable ?? [] },
    definitions: definitionsByName(),
    bug_types: stats.bug_types,
    domains: stats.domains,
    ...(stats.languages ? { languages: stats.languages } : {}),
    estimates: stats.estimates,
    density,
    resolution,
    second_stage,
    edit_position,
    rerank,
  };
  const files: string[] = [];
  const put = async (name: string, write: (p: string) => void) => {
    await yieldToLoop();
    const p = join(dir, name);
    write(p);
    files.push(p);
  };
  await put('summary.json', (p) => writeJsonAtomic(p, summary));
  await put('scores.parquet', (p) => writeScoresParquet(p, configs));
  const leaderboard = buildLeaderboard(stats);
  await put('leaderboard.json', (p) => writeJsonAtomic(p, leaderboard));
  await put('leaderboard.csv', (p) => writeFileAtomic(p, leaderboardCsv(leaderboard)));
  await put('pairwise.parquet', (p) => writePairwiseParquet(p, stats.pairwise, opts));
  const subset = manifest.query_subset ? { n: manifest.query_subset.query_ids.length, of: manifest.query_subset.of ?? full.queries.length, by: manifest.query_subset.by } : null;
  await put('report.md', (p) => writeFileAtomic(p, buildMarkdown(stats, { run, failed: manifest.failed_configs, rejections: manifest.rejections.length, subset, docstrings: summary.query_docstrings, density, resolution, secondStage: second_stage, editPosition: edit_position, rerank })));
  await put('report.html', (p) =>
    writeFileAtomic(
      p,
      buildHtml({
        run,
        stats,
        canonicalRanks: Object.fromEntries(configs.map((c) => [c.config_id, c.queries.map((q) => q.metrics.canonical_rank)])),
        drilldown: buildDrilldown(bench.queries, bench.corpus, configs),
        failed: manifest.failed_configs,
        analyses: { density, resolution, secondStage: second_stage, editPosition: edit_position, rerank },
      }),
    ),
  );
  // Exports other tools read (docs/metrics.md, "Exports"): run files with strictly decreasing scores in our order.
  const exp = join(runDir, 'export');
  const trecDir = join(exp, 'trec');
  const beirDir = join(exp, 'beir');
  writeBeirExport(beirDir, bench.queries, bench.corpus);
  writeTrecQrels(join(trecDir, 'qrels.txt'), bench.queries);
  const execFile = join(scoringDir(runDir), 'executions.parquet');
  // `score` hands over the rows of executions.parquet it has just written.
  const execRows = loaded.executions ?? (existsSync(execFile) ? readExecutionsParquet(execFile) : null);
  if (execRows) writeExecQrels(join(trecDir, 'qrels.exec.txt'), join(beirDir, 'qrels', 'exec.tsv'), execRows);
  const rankDir = join(runDir, 'rankings');
  for (const c of stats.configs) {
    await yieldToLoop();
    const file = join(rankDir, `${c}.parquet`);
    if (!existsSync(file)) continue;
    const byQuery = new Map<string, { corpus_id: string; score: number }[]>();
    for (const row of rankingsOf(file)) {
      let list = byQuery.get(row.query_id);
      if (!list) byQuery.set(row.query_id, (list = []));
      list[row.rank - 1] = { corpus_id: row.corpus_id, score: row.score };
    }
    const rankings: ExportRanking[] = [...byQuery].map(([query_id, hits]) => ({ query_id, hits }));
    writeTrecRun(trecDir, c, rankings);
    writeBeirResults(beirDir, c, rankings);
  }
  files.push(...readdirSync(trecDir).map((f) => join(trecDir, f)));
  return { dir, stats, files };
}

/** The lexical second stage: every other configuration's top 10 fused with BM25's order; none without a BM25 run. */
const SECOND_STAGE = 'bm25';
function secondStageRows(runDir: string, configs: readonly { config_id: string; queries: ScoredQuery[] }[], opts: ReportOptions, rankingsOf: typeof readRankingsParquet): SecondStageRow[] {
  const file = join(runDir, 'rankings', `${SECOND_STAGE}.parquet`);
  if (!configs.some((c) => c.config_id === SECOND_STAGE) || !existsSync(file)) return [];
  const ranks = new Map<string, Map<string, number>>();
  for (const row of rankingsOf(file)) {
    let m = ranks.get(row.query_id);
    if (!m) ranks.set(row.query_id, (m = new Map()));
    m.set(row.corpus_id, row.rank);
  }
  return configs.filter((c) => c.config_id !== SECOND_STAGE).map((c) => secondStage(c.config_id, c.queries, SECOND_STAGE, ranks, EXEC_DEPTH, opts));
}

/** Each scored reranker (import.json kind rerank, `execretrieval rerank`) beside its scored first stage. */
function rerankRows(runDir: string, configs: readonly { config_id: string; queries: ScoredQuery[] }[], opts: ReportOptions): RerankStageRow[] {
  const byId = new Map(configs.map((c) => [c.config_id, c.queries]));
  const rows: RerankStageRow[] = [];
  for (const c of configs) {
    const r = readImportManifest(join(runDir, 'embeddings', c.config_id))?.rerank;
    const first = r && byId.get(r.over);
    if (r && first) rows.push(rerankStage({ config_id: c.config_id, over: r.over, reranker_id: r.reranker_id, depth: r.depth }, c.queries, first, opts));
  }
  return rows;
}

/** Deception with and without the twins whose edit lies past the model's token limit (local transformer configurations). */
async function editPositionRows(configs: readonly { config_id: string; queries: ScoredQuery[] }[], corpus: readonly CorpusRecord[], opts: ReportOptions): Promise<EditPositionRow[]> {
  const registry = new Map(loadRegistry({ root: projectRoot(), files: opts.configFiles ? [...opts.configFiles] : undefined }).entries.map((e) => [e.config.config_id, e.config]));
  const rows: EditPositionRow[] = [];
  for (const c of configs) {
    const config = registry.get(c.config_id);
    const unseen = config ? await unseenEdits(config, corpus, modelRoot()) : null;
    if (config && unseen) rows.push(deceptionByEditPosition(c.config_id, c.queries, unseen, config.max_input_tokens!, opts));
  }
  return rows;
}
