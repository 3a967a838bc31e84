import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { runGate } from '../../activities/gate/gate.ts';
import { buildBenchmark } from '../../activities/benchmark/build.ts';
import { scoreRun } from '../../activities/scoring/scoreRun.ts';
import { projectRoot } from '../../activities/paths.ts';
import { writeConfig, writeTinyRun } from './fixtures/tinyBenchmark.ts';

/**
 * The exports reproduce our numbers in a standard evaluator: pytrec_eval (trec_eval's measures, PyPI
 * pytrec_eval-terrier, installed into .venv by bootstrap) reads export/trec and must give our nDCG@10 and
 * RR@10 (and exec@1, exec@10, execp@10 through the execution qrels) to 1e-9, query by query and on average,
 * on a fixture full of exact ties and on the default run's benchmark (`npm start`: curated source, seed 0)
 * scored with BM25, which ties on every query there.
 */
const venvPython = join(projectRoot(), '.venv', 'bin', 'python');
const CHECK = join(projectRoot(), 'test', 'scoring', 'pytrec_check.py');

type Measures = Record<string, number>;
type Checked = Record<string, { ordered: Record<string, Measures>; raw: Record<string, Measures> }>;

function pytrec(trecDir: string, configs: string[]): Checked {
  return JSON.parse(execFileSync(venvPython, [CHECK, trecDir, ...configs], { encoding: 'utf8', maxBuffer: 64 << 20 })) as Checked;
}

/** Ours (scoring/<config>.jsonl, summary.json) against pytrec_eval's reading of the ordered run; returns how far the raw-score run is off. */
function compare(runDir: string, configs: string[]): Record<string, number> {
  const got = pytrec(join(runDir, 'export', 'trec'), configs);
  const summary = JSON.parse(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'));
  const pairs: [string, string][] = [
    ['ndcg@10', 'ndcg_cut_10'],
    ['rr_exec@10', 'recip_rank'],
    ['exec@1', 'success_1'],
    ['exec@10', 'success_10'],
    ['execp@10', 'P_10'],
  ];
  const rawGap: Record<string, number> = {};
  for (const config of configs) {
    const per = readFileSync(join(runDir, 'scoring', `${config}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const ordered = got[config].ordered;
    assert.equal(Object.keys(ordered).length, per.length, `${config}: every query is in the run file`);
    let gap = 0;
    for (const [ours, theirs] of pairs) {
      let sum = 0;
      let rawSum = 0;
      for (const q of per) {
        const v = ordered[q.query_id][theirs];
        assert.ok(Math.abs(v - q.metrics[ours]) <= 1e-9, `${config} ${q.query_id} ${ours}: ours ${q.metrics[ours]}, pytrec_eval ${theirs} ${v}`);
        sum += v;
        rawSum += got[config].raw[q.query_id][theirs];
      }
      const mean = summary.estimates[config][ours].estimate;
      assert.ok(Math.abs(sum / per.length - mean) <= 1e-9, `${config} ${ours}: summary ${mean}, pytrec_eval ${sum / per.length}`);
      gap = Math.max(gap, Math.abs(rawSum / per.length - mean));
    }
    rawGap[config] = gap;
  }
  return rawGap;
}

/** Queries of a ranking whose top 10 holds an exact score tie (read from the raw-score file). */
function tiedQueries(runDir: string, config: string): number {
  const rows = readFileSync(join(runDir, 'export', 'trec', `${config}.scores.tsv`), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
  const byQuery = new Map<string, number[]>();
  for (const [q, , rank, score] of rows) if (Number(rank) <= 10) (byQuery.get(q) ?? byQuery.set(q, []).get(q)!).push(Number(score));
  return [...byQuery.values()].filter((s) => new Set(s).size < s.length).length;
}

describe('pytrec_eval reproduces our nDCG@10 and RR@10 from the exports', () => {
  let dir: string;
  let oracle: Oracle;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-pytrec-'));
    oracle = await openOracle({ cachePath: join(dir, 'exec-cache.sqlite'), concurrency: 2 });
  });
  after(async () => {
    await oracle?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a fixture with exact ties in the top 10 of every query of `tied`', async () => {
    const runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    // Exact ties: own items share one weight; every other item shares the filler score 0 (a seven-item group).
    writeConfig(
      runDir,
      'tied',
      {
        q_0001: { q_0001_d1: 0.8, q_0001_canonical: 0.8, q_0001_d2: 0.8 },
        q_0002: { q_0002_canonical: 0.5, q_0002_d1: 0.5 },
        q_0003: { q_0004_canonical: 0.7, q_0003_d1: 0.7, q_0003_canonical: 0.7 },
        q_0004: { q_0004_d1: 0.9 },
      },
      undefined,
      0,
    );
    await scoreRun({ runDir, oracle, configs: ['tied', 'toy', 'bm25'], replicates: 200, seed: 1 });
    assert.equal(tiedQueries(runDir, 'tied'), 4);
    const gap = compare(runDir, ['tied', 'toy', 'bm25']);
    // The fault the ordered scores exist for: with the raw (tied) scores pytrec_eval re-breaks the ties by
    // docid and reports other numbers.
    assert.ok(gap.tied > 0.05, `raw-score run of the tied fixture should disagree, gap ${gap.tied}`);
    assert.equal(gap.toy, 0); // no ties: raw and ordered scores give the same numbers
  });

  test("the default run's benchmark (curated, seed 0) scored with BM25", async () => {
    const runDir = join(dir, 'default');
    await buildBenchmark({ source: 'curated', out: join(runDir, 'benchmark'), seed: 0, oracle, gate: runGate });
    await scoreRun({ runDir, oracle, configs: ['bm25'], replicates: 200, seed: 1 });
    const tied = tiedQueries(runDir, 'bm25');
    assert.ok(tied >= 90, `BM25 ties in the top 10 of ${tied} default-run queries`);
    const gap = compare(runDir, ['bm25']);
    assert.ok(gap.bm25 > 0.1, `raw-score BM25 run should disagree with ours, gap ${gap.bm25}`);
  });
});
