import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Table, Bool, Field, Int32, List, Utf8, vectorFromArray, type Vector } from 'apache-arrow';
import { metricDimensions, type MetricDimensions } from '../../core/metrics/metricDimensions.ts';
import { parseJsonl, type SafeParser } from '../../core/jsonl.ts';
import type { ScoredQuery } from '../../core/report/types.ts';
import { buildStatSpecs } from '../../core/report/statistics.ts';
import { writeJsonlAtomic } from '../storage/atomic.ts';
import { float64Column, readParquet, utf8Column, writeParquet } from '../storage/parquet.ts';

/**
 * Files `score` leaves for `report`:
 *   runs/<id>/scoring/<config_id>.jsonl   one ScoredQuery per line, in benchmark query order
 *   runs/<id>/scoring/manifest.json       configs, failures, rejections, execution counts
 *   runs/<id>/scoring/executions.parquet  every executed (query, snippet) pair with its outcomes
 *   runs/<id>/report/scores.parquet       long table: config_id, query_id, metric, value, num, den (written by the report)
 */
export const scoringDir = (runDir: string) => join(runDir, 'scoring');
export const reportDir = (runDir: string) => join(runDir, 'report');

export function writeScoredConfig(runDir: string, configId: string, rows: readonly ScoredQuery[]): void {
  writeJsonlAtomic(join(scoringDir(runDir), `${configId}.jsonl`), rows);
}

/** `score` wrote these files itself, so a record is trusted as a ScoredQuery (no schema to check it against). */
const UNCHECKED_SCORED_QUERY: SafeParser<ScoredQuery> = { safeParse: (v) => ({ success: true, data: v as ScoredQuery }) };

export function readScoredConfigs(runDir: string, order?: readonly string[]): { config_id: string; queries: ScoredQuery[] }[] {
  const dir = scoringDir(runDir);
  if (!existsSync(dir)) throw new Error(`${dir} not found: run \`execretrieval score\` first`);
  const ids = order ?? readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => f.slice(0, -'.jsonl'.length)).sort();
  return ids.map((id) => {
    const file = join(dir, `${id}.jsonl`);
    const queries: ScoredQuery[] = [];
    parseJsonl(readFileSync(file, 'utf8'), UNCHECKED_SCORED_QUERY, {
      record: (_line, q) => queries.push(q),
      badJson: (line, message) => {
        throw new Error(`${file}:${line}: ${message}`);
      },
      invalid: () => {}, // never called: the parser accepts every JSON value
    });
    return { config_id: id, queries };
  });
}

/**
 * Per query × configuration × statistic, long format (what DuckDB/pandas users pivot): one row for every
 * query that enters a statistic of summary.json, under the same name, with the statistic's numerator and
 * denominator for that query (value = num / den). Every summary estimate is sum(num) / sum(den) over its
 * rows: a plain mean has den = 1; derived ratios (deception_rate, rank1_own_share, pref_accuracy,
 * bug_outscore:*, ...) are ratios of sums, not means of the per-query values. A query with den = 0 (no rank-1
 * miss, no distractor of that bug type) does not enter the statistic and has no row.
 */
/**
 * The dimensions packed in each metric name as columns of their own (core/metrics/metricDimensions.ts):
 * measure, k (null without a cutoff), tie_aware, group (the bug type or domain; null otherwise).
 */
export function dimensionColumns(metrics: readonly string[]): { measure: Vector<Utf8>; k: Vector<Int32>; tie_aware: Vector<Bool>; group: Vector<Utf8> } {
  const memo = new Map<string, MetricDimensions>();
  const dims = metrics.map((m) => memo.get(m) ?? memo.set(m, metricDimensions(m)).get(m)!);
  return {
    measure: utf8Column(dims.map((d) => d.measure)),
    k: vectorFromArray(dims.map((d) => d.k), new Int32()),
    tie_aware: vectorFromArray(dims.map((d) => d.tie_aware), new Bool()),
    group: vectorFromArray(dims.map((d) => d.group), new Utf8()),
  };
}

export function writeScoresParquet(path: string, configs: readonly { config_id: string; queries: readonly ScoredQuery[] }[]): void {
  const { stats } = buildStatSpecs(configs);
  const ids = configs[0].queries.map((q) => q.query_id);
  const cfg: string[] = [];
  const qid: string[] = [];
  const metric: string[] = [];
  const value: number[] = [];
  const num: number[] = [];
  const den: number[] = [];
  for (const st of stats) {
    const [config, name] = st.key.split('\u0000');
    for (let i = 0; i < ids.length; i++) {
      const d = st.den ? st.den[i] : 1;
      if (d === 0) continue;
      cfg.push(config);
      qid.push(ids[i]);
      metric.push(name);
      num.push(st.num[i]);
      den.push(d);
      value.push(st.num[i] / d);
    }
  }
  const table = new Table({
    config_id: utf8Column(cfg),
    query_id: utf8Column(qid),
    metric: utf8Column(metric),
    ...dimensionColumns(metric),
    value: float64Column(value),
    num: float64Column(num),
    den: float64Column(den),
  });
  writeParquet(path, table);
}

/** One row of scoring/executions.parquet (the verdict of one (query, snippet) pair). */
export interface ExecutionRow {
  query_id: string;
  corpus_id: string;
  passed: boolean;
  outcomes: string[];
  cached: boolean;
}

export function writeExecutionsParquet(path: string, rows: readonly ExecutionRow[]): void {
  const table = new Table({
    query_id: utf8Column(rows.map((r) => r.query_id)),
    corpus_id: utf8Column(rows.map((r) => r.corpus_id)),
    passed: vectorFromArray(rows.map((r) => r.passed), new Bool()),
    // A list of strings, one per test (not a JSON string): DuckDB's list functions and pandas read it as is.
    outcomes: vectorFromArray(rows.map((r) => r.outcomes), new List(new Field('item', new Utf8(), false))),
    cached: vectorFromArray(rows.map((r) => r.cached), new Bool()),
  });
  writeParquet(path, table);
}

/** An outcomes cell: a list of strings, or (runs scored before outcomes became a list) a JSON string of one. */
function outcomesOf(cell: unknown): string[] {
  if (typeof cell === 'string') return JSON.parse(cell) as string[];
  return Array.from(cell as Iterable<unknown>, String);
}

/** scoring/executions.parquet back as rows (outcomes as a list). */
export function readExecutionsParquet(path: string): { query_id: string; corpus_id: string; passed: boolean; outcomes: string[] }[] {
  const t = readParquet(path);
  const q = t.getChild('query_id')!;
  const c = t.getChild('corpus_id')!;
  const p = t.getChild('passed')!;
  const o = t.getChild('outcomes')!;
  return Array.from({ length: t.numRows }, (_, i) => ({
    query_id: String(q.get(i)),
    corpus_id: String(c.get(i)),
    passed: Boolean(p.get(i)),
    outcomes: outcomesOf(o.get(i)),
  }));
}
