import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { scoreRun } from '../../activities/scoring/scoreRun.ts';
import { readScoredConfigs } from '../../activities/scoring/scoringFiles.ts';
import { writeReport } from '../../activities/scoring/writeReport.ts';
import { projectRoot } from '../../activities/paths.ts';
import { writeTinyRun } from './fixtures/tinyBenchmark.ts';

const venvPython = join(projectRoot(), '.venv', 'bin', 'python');
/** Reads Parquet files with pyarrow (an independent reader), one Python start for all: rows as JSON per file. */
function pyarrowRows(...paths: string[]): Record<string, unknown>[][] {
  const code = 'import sys, json, pyarrow.parquet as pq; print(json.dumps([pq.read_table(p).to_pylist() for p in sys.argv[1:]]))';
  return JSON.parse(execFileSync(venvPython, ['-c', code, ...paths], { encoding: 'utf8' })) as Record<string, unknown>[][];
}

describe('score + report end to end on a hand-made benchmark with the real oracle', () => {
  let dir: string;
  let runDir: string;
  let oracle: Oracle;
  let result: Awaited<ReturnType<typeof scoreRun>>;
  let toyRankings: Record<string, unknown>[];
  let pairwiseRows: Record<string, unknown>[];
  let scoreRows: Record<string, unknown>[];
  const logs: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-score-'));
    runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    oracle = await openOracle({ cachePath: join(dir, 'exec-cache.sqlite'), concurrency: 2 });
    result = await scoreRun({ runDir, oracle, replicates: 400, seed: 11, log: (m) => logs.push(m) });
    [toyRankings, pairwiseRows, scoreRows] = pyarrowRows(
      join(runDir, 'rankings', 'toy.parquet'),
      join(runDir, 'report', 'pairwise.parquet'),
      join(runDir, 'report', 'scores.parquet'),
    );
  });
  after(async () => {
    await oracle?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('bad records and a broken configuration are reported; the rest is scored', () => {
    const m = result.manifest;
    assert.deepEqual(m.configs, ['canonical-first', 'toy', 'bm25']);
    assert.equal(m.failed_configs.length, 1);
    assert.equal(m.failed_configs[0].config_id, 'broken');
    assert.match(m.failed_configs[0].error, /queries\.arrow: no vector for id q_0004/);
    assert.equal(m.rejections.length, 1);
    assert.match(m.rejections[0].file, /queries\.jsonl$/);
    assert.equal(m.rejections[0].line, 3);
    assert.equal(m.rejections[0].field, 'query');
    assert.equal(m.n_queries, 4);
    // 9 corpus items, every one in each query's top-10: 4 × 9 distinct pairs, each executed once.
    assert.equal(m.executions.pairs, 36);
    // Where the time went: every pair is skipped (not_defined), run, or answered by the cache, once.
    const t = JSON.parse(readFileSync(join(runDir, 'scoring', 'timings.json'), 'utf8'));
    assert.deepEqual(t, result.timings);
    assert.deepEqual(t.phases.map((p: [string, number]) => p[0]), ['load', 'rank', 'execute top 10', 'score + write', 'report']);
    assert.equal(t.executions.skipped, m.executions.not_defined);
    assert.ok(m.executions.not_defined > 0, 'other queries\' snippets that define none of the called names');
    assert.equal(t.executions.skipped + t.executions.run + t.executions.cached, 36);
  });

  test('rankings Parquet: top list in score order (read back with pyarrow)', () => {
    const rows = toyRankings.filter((r) => r.query_id === 'q_0001');
    assert.deepEqual(
      rows.map((r) => r.corpus_id),
      ['q_0001_d1', 'q_0001_canonical', 'q_0001_d2', 'q_0002_canonical', 'q_0002_d1', 'q_0003_canonical', 'q_0003_d1', 'q_0004_canonical', 'q_0004_d1'],
    );
    assert.deepEqual(rows.map((r) => r.rank), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // q_0001 weights the first three items; the other six carry the fixture's small negative fillers.
    const w = Math.hypot(0.9, 0.8, 0.5, ...[4, 5, 6, 7, 8, 9].map((j) => 0.001 * j));
    assert.ok(Math.abs((rows[0].score as number) - 0.9 / w) < 1e-6);
  });

  test('metrics are decided by execution: hand-worked values for the toy configuration', () => {
    const toy = readScoredConfigs(runDir, ['toy'])[0].queries;
    const [q1, q2, q3, q4] = toy;
    // q1: d1 (fails) above the canonical (passes) above d2 (fails); nothing else defines `larger`.
    assert.deepEqual(q1.hits.slice(0, 3).map((h) => h.passed), [false, true, false]);
    assert.equal(q1.hits[0].outcomes[0], 'FAIL'); // larger(1, 2) with <= returns 1: bare AssertionError
    assert.deepEqual([q1.metrics['exec@1'], q1.metrics['exec@3'], q1.metrics['execp@10'], q1.metrics['rr_exec@10'], q1.metrics.canonical_rank], [0, 1, 0.1, 0.5, 2]);
    assert.ok(Math.abs(q1.metrics['ndcg@3'] - 1 / Math.log2(3)) < 1e-12);
    assert.deepEqual([q1.deception.deceived, q1.deception.rank1_miss, q1.deception.rank1_own_distractor, q1.deception.pref_wins], [1, 1, 1, 1]);
    assert.deepEqual(q1.deception.by_bug_type, { wrong_comparison: { outscores: 1, ties: 0, total: 1 }, swap_arguments: { outscores: 0, ties: 0, total: 1 } });
    // q2: canonical first.
    assert.deepEqual([q2.metrics['exec@1'], q2.metrics['ndcg@1'], q2.deception.deceived], [1, 1, 0]);
    // q3: rank 1 is q_0004's canonical, which passes q_0003's tests: exec@1 = 1 although nDCG@1 = 0.
    assert.equal(q3.hits[0].corpus_id, 'q_0004_canonical');
    assert.deepEqual([q3.metrics['exec@1'], q3.metrics['ndcg@1'], q3.metrics.canonical_rank, q3.deception.deceived, q3.deception.rank1_miss], [1, 0, 3, 1, 0]);
    // q4: d1 (x*y) fails, canonical passes, and q_0003's canonical (rank 8) passes too.
    assert.equal(q4.hits[7].corpus_id, 'q_0003_canonical');
    assert.deepEqual([q4.metrics['exec@1'], q4.metrics['exec@3'], q4.metrics['execp@10']], [0, 1, 0.2]);
  });

  test('report files: summary, pairwise (McNemar b/c), Markdown, HTML, exports', () => {
    const rdir = join(runDir, 'report');
    const summary = JSON.parse(readFileSync(join(rdir, 'summary.json'), 'utf8'));
    assert.equal(summary.bootstrap.seed, 11);
    assert.equal(summary.bootstrap.replicates, 400);
    assert.match(summary.bootstrap.prng, /xoshiro128/);
    assert.equal(summary.estimates.toy['exec@1'].estimate, 0.5);
    assert.equal(summary.estimates['canonical-first']['exec@1'].estimate, 1);
    assert.equal(summary.estimates.toy.deception_rate.estimate, 0.75); // q1, q3, q4 deceived
    // Density scaling: with no query above four twins, the pool at 4 twins is the full pool, so that row repeats
    // the headline (an independent path: the scored rankings as stored, not re-read with twins removed).
    for (const config of summary.configs as string[]) {
      const full = summary.density.find((t: { config_id: string }) => t.config_id === config).points.at(-1);
      assert.equal(full.twins, 4);
      assert.equal(full.exec_at_1.estimate, summary.estimates[config]['exec@1_ta'].estimate, config); // tie-aware, as the headline
      assert.equal(full.deception_rate.estimate, summary.estimates[config].deception_rate.estimate, config);
    }
    assert.ok(summary.resolution.some((r: { metric: string }) => r.metric === 'exec@1'));
    const pw = pairwiseRows;
    const row = pw.find((r) => r.metric === 'exec@1' && r.config_a === 'canonical-first' && r.config_b === 'toy')!;
    // exec@1 canonical-first = [1,1,1,1], toy = [0,1,1,0]: b = 2, c = 0, exact p = 2 * 0.5^2 = 0.5.
    assert.deepEqual([row.b, row.c, row.p_value], [2, 0, 0.5]);
    assert.equal(pw.length, 3 * 16); // 3 pairs × 16 compared metrics
    const scores = scoreRows;
    assert.ok(scores.some((r) => r.config_id === 'toy' && r.query_id === 'q_0003' && r.metric === 'exec@1' && r.value === 1));
    // The dimensions packed in each name are columns too: hand-worked for four names, and every row's (and every
    // pairwise row's) name is its columns put back together (k an integer, tie_aware a bool as pyarrow reads them).
    const dims = (m: string) => { const r = scores.find((x) => x.metric === m)!; return [r.measure, r.k, r.tie_aware, r.group]; };
    assert.deepEqual(dims('exec@10_ta'), ['exec', 10, true, null]);
    assert.deepEqual(dims('rr_exec@10'), ['rr_exec', 10, false, null]);
    assert.deepEqual(dims('deception_rate'), ['deception_rate', null, false, null]);
    const bug = scores.find((x) => String(x.metric).startsWith('bug_outscore:'))!;
    assert.deepEqual([bug.measure, bug.k, bug.group], ['bug_outscore', null, String(bug.metric).slice('bug_outscore:'.length)]);
    const named = (r: Record<string, unknown>) => `${r.measure}${r.k === null ? '' : `@${r.k}`}${r.tie_aware ? '_ta' : ''}${r.group === null ? '' : `:${r.group}`}`;
    for (const r of [...scores, ...pw]) assert.equal(named(r), r.metric);
    // scores.parquet uses summary.json's names, and every estimate is sum(num) / sum(den) over its rows.
    const sums = new Map<string, [number, number]>();
    for (const r of scores) {
      const k = `${r.config_id}|${r.metric}`;
      const acc = sums.get(k) ?? [0, 0];
      sums.set(k, [acc[0] + (r.num as number), acc[1] + (r.den as number)]);
    }
    let checked = 0;
    for (const [config, stats] of Object.entries(summary.estimates as Record<string, Record<string, { estimate: number; support: number }>>)) {
      for (const [name, st] of Object.entries(stats)) {
        const acc = sums.get(`${config}|${name}`);
        if (st.support === 0) continue;
        assert.ok(acc, `scores.parquet has no rows for ${config} ${name}`);
        assert.ok(Math.abs(acc[0] / acc[1] - st.estimate) < 1e-12, `${config} ${name}: ${acc[0] / acc[1]} vs ${st.estimate}`);
        checked++;
      }
    }
    assert.ok(checked > 3 * 30, `${checked} statistics checked`);
    assert.equal(summary.definitions.deception_rate.includes('strictly above'), true);
    // Leaderboard: headline order (exec@1_ta desc), the same numbers as summary.json. Four queries cannot separate
    // anyone (an exact McNemar needs at least 6 settled discordant queries for p < 0.05): no entry is the winner.
    const lb = JSON.parse(readFileSync(join(rdir, 'leaderboard.json'), 'utf8'));
    assert.deepEqual(lb.entries.map((x: { config_id: string }) => x.config_id), ['canonical-first', 'toy', 'bm25'].sort(
      (a, b) => summary.estimates[b]['exec@1_ta'].estimate - summary.estimates[a]['exec@1_ta'].estimate || summary.estimates[b]['exec@1'].estimate - summary.estimates[a]['exec@1'].estimate || (a < b ? -1 : 1),
    ));
    assert.equal(lb.sorted_by, 'exec@1_ta');
    assert.equal(lb.winner, null);
    assert.deepEqual(lb.entries.filter((x: { winner: boolean }) => x.winner), []);
    assert.equal(summary.headline.winner, null);
    assert.equal(summary.headline.leader, lb.entries[0].config_id);
    assert.equal(summary.headline.stable.length, 2 * 3);
    const csv = readFileSync(join(rdir, 'leaderboard.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    const col = (name: string) => csv[0].indexOf(name);
    assert.equal(csv.length, 1 + 3);
    for (const row of csv.slice(1)) {
      assert.equal(Number(row[col('exec@1')]), summary.estimates[row[col('config_id')]]['exec@1'].estimate);
      assert.equal(Number(row[col('deception_rate_ci_low')]), summary.estimates[row[col('config_id')]].deception_rate.ci_low);
    }
    const md = readFileSync(join(rdir, 'report.md'), 'utf8');
    assert.match(md, /## Headline/);
    assert.match(md, /\| \([a-c]\) toy \| 0\.500 \[/);
    assert.match(md, /broken/);
    const html = readFileSync(join(rdir, 'report.html'), 'utf8');
    assert.ok(!/(src|href)=["']https?:/.test(html), 'no external resources');
    const qrels = readFileSync(join(runDir, 'export', 'beir', 'qrels', 'test.tsv'), 'utf8').trim().split('\n');
    assert.deepEqual(qrels[0], 'query-id\tcorpus-id\tscore');
    assert.equal(qrels.length, 5);
    const beirCorpus = readFileSync(join(runDir, 'export', 'beir', 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(Object.keys(beirCorpus[0]).slice(0, 3), ['_id', 'title', 'text']);
    const trec = readFileSync(join(runDir, 'export', 'trec', 'toy.run'), 'utf8').trim().split('\n');
    assert.equal(trec[0].split(' ').slice(0, 4).join(' '), 'q_0001 Q0 q_0001_d1 1');
    assert.equal(trec.length, 4 * 9);
  });

  test('re-scoring is served from the execution cache and gives the same numbers', async () => {
    const again = await scoreRun({ runDir, oracle, replicates: 400, seed: 11 });
    // Every pair either comes from the cache or is not_defined (never run, so never cached).
    assert.equal(again.manifest.executions.cached + again.manifest.executions.not_defined, again.manifest.executions.pairs);
    assert.equal(again.manifest.executions.not_defined, result.manifest.executions.not_defined);
    assert.deepEqual(again.report.stats.estimates, result.report.stats.estimates);
    // `report` alone recomputes from stored files; a different seed changes intervals, not estimates.
    const other = await writeReport(runDir, { replicates: 400, seed: 12, alpha: 0.05 });
    assert.equal(other.stats.estimates.toy['exec@1'].estimate, result.report.stats.estimates.toy['exec@1'].estimate);
    assert.ok(existsSync(join(runDir, 'report', 'report.html')));
  });

  test('a release-layout run (queries.jsonl at the top, which embed accepts) is scored from there, with the same numbers', async () => {
    const release = join(dir, 'release');
    cpSync(join(runDir, 'benchmark'), release, { recursive: true });
    cpSync(join(runDir, 'embeddings'), join(release, 'embeddings'), { recursive: true });
    const r = await scoreRun({ runDir: release, oracle, replicates: 400, seed: 11 });
    assert.deepEqual(r.report.stats.estimates, result.report.stats.estimates);
  });

  test('CLI report rebuilds the report with the seed it is given; compare prints the pairwise row, flipped when asked in the other order', async () => {
    // In-process, the two real commands on a Commander program (spawning the CLI, which loads every command's
    // dependencies, costs ~20 s a call on a loaded 2-core box).
    const { Command } = await import('commander');
    const { registerReport } = await import('../../cli/commands/report.ts');
    const { registerCompare } = await import('../../cli/commands/compare.ts');
    const { registerScore } = await import('../../cli/commands/score.ts');
    const buildProgram = () => {
      const p = new Command();
      registerReport(p);
      registerCompare(p);
      registerScore(p);
      return p;
    };
    const cli = async (...args: string[]) => {
      const out: string[] = [];
      const log = console.log;
      console.log = (...a: unknown[]) => out.push(a.join(' '));
      try {
        await buildProgram().exitOverride().parseAsync(['node', 'execretrieval', ...args]);
      } finally {
        console.log = log;
      }
      return out.join('\n');
    };
    const rep = await cli('report', '--run', runDir, '--replicates', '300', '--seed', '99');
    assert.match(rep, /3 configurations × 4 queries/);
    const summary = JSON.parse(readFileSync(join(runDir, 'report', 'summary.json'), 'utf8'));
    assert.deepEqual([summary.bootstrap.seed, summary.bootstrap.replicates], [99, 300]);
    const out = await cli('compare', '--run', runDir, 'toy', 'canonical-first', '--json');
    const rows = JSON.parse(out) as { metric: string; b: number; c: number; diff: number; config_a: string }[];
    const e1 = rows.find((r) => r.metric === 'exec@1')!;
    assert.equal(e1.config_a, 'toy');
    assert.deepEqual([e1.b, e1.c, e1.diff], [0, 2, -0.5]);

    // score --json: stdout is one JSON document (manifest, leaderboard sorted by exec@1, report paths).
    const scored = await cli('score', '--run', runDir, '--json', '--replicates', '300');
    // The fixture has a rejected record: score still scores the rest and exits 1 to say so.
    assert.equal(process.exitCode, 1);
    process.exitCode = undefined;
    const js = JSON.parse(scored) as {
      manifest: { n_queries: number; configs: string[] };
      leaderboard: { sorted_by: string; entries: { config_id: string; winner: boolean; metrics: Record<string, { estimate: number }> }[] };
      report: { md: string; html: string };
    };
    assert.equal(js.manifest.n_queries, 4);
    assert.equal(js.leaderboard.sorted_by, 'exec@1_ta');
    const e = js.leaderboard.entries.map((x) => x.metrics['exec@1_ta'].estimate);
    assert.deepEqual(e, [...e].sort((a, b) => b - a));
    assert.equal(js.leaderboard.entries.filter((x) => x.winner).length, 0);
    assert.ok(js.report.html.endsWith('report.html'));
  });
});
