import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Float64, Table, Utf8, Bool, vectorFromArray } from 'apache-arrow';
import { parseJsonl, type SafeParser } from '../../core/jsonl.ts';
import type { ScoredQuery } from '../../core/report/types.ts';
import { METRICS } from '../../core/metrics/per_query.ts';
import { writeJsonlAtomic } from '../storage/atomic.ts';
import { writeParquet } from '../storage/parquet.ts';

/**
 * Files `score` leaves for `report`:
 *   runs/<id>/scoring/<config_id>.jsonl   one ScoredQuery per line, in benchmark query order
 *   runs/<id>/scoring/manifest.json       configs, failures, rejections, execution counts
 *   runs/<id>/scoring/executions.parquet  every executed (query, snippet) pair with its outcomes
 *   runs/<id>/report/scores.parquet       long table: config_id, query_id, metric, value
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

/** Per query × configuration × metric, long format (what DuckDB/pandas users pivot). Deception flags included. */
export function writeScoresParquet(path: string, configs: readonly { config_id: string; queries: readonly ScoredQuery[] }[]): void {
  const cfg: string[] = [];
  const qid: string[] = [];
  const metric: string[] = [];
  const value: number[] = [];
  const push = (c: string, q: string, m: string, v: number) => {
    cfg.push(c);
    qid.push(q);
    metric.push(m);
    value.push(v);
  };
  for (const c of configs) {
    for (const q of c.queries) {
      for (const m of METRICS) push(c.config_id, q.query_id, m, q.metrics[m]);
      const d = q.deception;
      push(c.config_id, q.query_id, 'deceived', d.deceived);
      push(c.config_id, q.query_id, 'tied', d.tied);
      push(c.config_id, q.query_id, 'rank1_own_distractor', d.rank1_own_distractor);
      if (d.pref_pairs > 0) push(c.config_id, q.query_id, 'pref_accuracy', d.pref_wins / d.pref_pairs);
    }
  }
  const table = new Table({
    config_id: vectorFromArray(cfg, new Utf8()),
    query_id: vectorFromArray(qid, new Utf8()),
    metric: vectorFromArray(metric, new Utf8()),
    value: vectorFromArray(value, new Float64()),
  });
  writeParquet(path, table);
}

export function writeExecutionsParquet(path: string, rows: readonly { query_id: string; corpus_id: string; passed: boolean; outcomes: string[]; cached: boolean }[]): void {
  const table = new Table({
    query_id: vectorFromArray(rows.map((r) => r.query_id), new Utf8()),
    corpus_id: vectorFromArray(rows.map((r) => r.corpus_id), new Utf8()),
    passed: vectorFromArray(rows.map((r) => r.passed), new Bool()),
    outcomes: vectorFromArray(rows.map((r) => JSON.stringify(r.outcomes)), new Utf8()),
    cached: vectorFromArray(rows.map((r) => r.cached), new Bool()),
  });
  writeParquet(path, table);
}
