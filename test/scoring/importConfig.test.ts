import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { scoreRun } from '../../activities/scoring/scoreRun.ts';
import { readScoredConfigs } from '../../activities/scoring/scoringFiles.ts';
import { readRankingsParquet } from '../../activities/scoring/rankingsParquet.ts';
import { matrixTable, readMatrix } from '../../activities/embeddings/matrix.ts';
import { writeParquet, utf8Column, float64Column } from '../../activities/storage/parquet.ts';
import { StopError } from '../../activities/faults.ts';
import { registerImportRankings, registerImportVectors } from '../../cli/commands/importConfig.ts';
import { registerCompare } from '../../cli/commands/compare.ts';
import { Table } from 'apache-arrow';
import { writeConfig, writeTinyRun, TOY_WEIGHTS } from './fixtures/tinyBenchmark.ts';
import { assertClose } from '../support/assertClose.ts';

/** A .npy (format 1.0) of float32 rows, as numpy.save writes it. */
function npyBytes(rows: number, dims: number, data: Float32Array): Buffer {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${dims}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(pre);
  pre.writeUInt16LE(header.length, 8);
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

/** The two CLI commands on a Commander program, in-process (spawning the CLI costs seconds per call). */
async function cli(...args: string[]): Promise<string> {
  const p = new Command();
  registerImportRankings(p);
  registerImportVectors(p);
  registerCompare(p);
  const out: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => out.push(a.join(' '));
  try {
    await p.exitOverride().parseAsync(['node', 'execretrieval', ...args]);
  } finally {
    console.log = log;
  }
  return out.join('\n');
}

describe('an imported run or imported vectors score exactly like the configuration they came from', () => {
  let dir: string;
  let runDir: string;
  let oracle: Oracle;
  const files: Record<string, string> = {};
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-import-'));
    runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    // Unweighted items all score 0: tied groups inside and across the top 10, so the tie rule is exercised.
    writeConfig(runDir, 'tied', TOY_WEIGHTS, undefined, 0);
    oracle = await openOracle({ cachePath: join(dir, 'exec-cache.sqlite'), concurrency: 2 });
    await scoreRun({ runDir, oracle, configs: ['toy', 'tied'], bm25: false, replicates: 200, seed: 3 });
    // TREC runs from the stored rankings with the raw scores (ties kept), rows shuffled: the import orders by score.
    for (const c of ['toy', 'tied']) {
      const rows = readRankingsParquet(join(runDir, 'rankings', `${c}.parquet`));
      const lines = rows.map((r) => `${r.query_id} Q0 ${r.corpus_id} ${r.rank} ${r.score} other-system`);
      files[`${c}.trec`] = join(dir, `${c}.run`);
      writeFileSync(files[`${c}.trec`], lines.reverse().join('\n') + '\n');
    }
    // The same tied rankings as a Parquet run (query_id, corpus_id, score), no rank column.
    const tied = readRankingsParquet(join(runDir, 'rankings', 'tied.parquet'));
    files['tied.parquet'] = join(dir, 'tied-run.parquet');
    writeParquet(files['tied.parquet'], new Table({ query_id: utf8Column(tied.map((r) => r.query_id)), corpus_id: utf8Column(tied.map((r) => r.corpus_id)), score: float64Column(tied.map((r) => r.score)) }));
    // And as CSV with a BEIR-style header, quoted ids, a rank column and CRLF line ends.
    files['tied.csv'] = join(dir, 'tied-run.csv');
    writeFileSync(files['tied.csv'], ['"query-id",corpus-id,rank,score', ...tied.map((r) => `"${r.query_id}",${r.corpus_id},${r.rank},${r.score}`)].join('\r\n') + '\r\n');
    // toy's vectors as one Parquet file (queries and corpus rows together), tied's as one .npy with its id list.
    const m = (c: string, part: string) => readMatrix(join(runDir, 'embeddings', c, `${part}.arrow`));
    const toyQ = m('toy', 'queries');
    const toyC = m('toy', 'corpus');
    files['toy.vectors'] = join(dir, 'toy-vectors.parquet');
    writeParquet(files['toy.vectors'], matrixTable(toyC, {}).concat(matrixTable(toyQ, {})));
    const tq = m('tied', 'queries');
    const tc = m('tied', 'corpus');
    const all = new Float32Array([...tq.data, ...tc.data]);
    files['tied.npy'] = join(dir, 'tied.npy');
    files['tied.ids'] = join(dir, 'tied.ids.txt');
    writeFileSync(files['tied.npy'], npyBytes(tq.ids.length + tc.ids.length, tq.dims, all));
    writeFileSync(files['tied.ids'], [...tq.ids, ...tc.ids].join('\n') + '\n');
  });
  after(async () => {
    await oracle?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('rankings (TREC, Parquet, CSV run) and vectors (Parquet, .npy) imported under new names give the same metrics, deception and ties', async () => {
    await cli('import-rankings', '--run', runDir, files['toy.trec'], '--name', 'toy-trec');
    await cli('import-rankings', '--run', runDir, files['tied.trec'], '--name', 'tied-trec');
    await cli('import-rankings', '--run', runDir, files['tied.parquet'], '--name', 'tied-run-pq');
    await cli('import-rankings', '--run', runDir, files['tied.csv'], '--name', 'tied-csv');
    await cli('import-vectors', '--run', runDir, files['toy.vectors'], '--name', 'toy-vec');
    const out = await cli('import-vectors', '--run', runDir, files['tied.npy'], '--ids', files['tied.ids'], '--name', 'tied-npy');
    assert.match(out, /imported .* as configuration tied-npy: 13 rows, 4 queries/);
    const ids = ['toy', 'tied', 'toy-trec', 'tied-trec', 'tied-run-pq', 'tied-csv', 'toy-vec', 'tied-npy'];
    const r = await scoreRun({ runDir, oracle, configs: ids, replicates: 200, seed: 3 });
    assert.deepEqual(r.manifest.configs, ids);
    assert.deepEqual(r.manifest.failed_configs, []);
    const scored = Object.fromEntries(readScoredConfigs(runDir, ids).map((c) => [c.config_id, c.queries]));
    // The tied configuration really has tied groups in its executed top 10 (else the check below proves nothing about ties).
    assert.ok(scored.tied.every((q) => q.hits.some((h, i) => i > 0 && h.score === q.hits[i - 1].score)), 'tied groups in every top 10');
    for (const [copy, source] of [['toy-trec', 'toy'], ['toy-vec', 'toy'], ['tied-trec', 'tied'], ['tied-run-pq', 'tied'], ['tied-csv', 'tied'], ['tied-npy', 'tied']]) {
      assertClose(scored[copy], scored[source], `${copy} vs ${source}`);
      const est = r.report.stats.estimates;
      assertClose(est[copy], est[source], `summary ${copy}`);
    }
    // Exports: the imported configuration's TREC export is the source's.
    const trec = (c: string) => readFileSync(join(runDir, 'export', 'trec', `${c}.run`), 'utf8').replace(new RegExp(` ${c}$`, 'gm'), '');
    assert.equal(trec('tied-trec'), trec('tied'));
    // compare: the pair has no discordant query on any binary metric.
    const rows = JSON.parse(await cli('compare', runDir, 'tied-npy', 'tied', '--json')) as { metric: string; b: number; c: number; diff: number }[];
    const e1 = rows.find((x) => x.metric === 'exec@1')!;
    assert.deepEqual([e1.b, e1.c, e1.diff], [0, 0, 0]);
    const md = readFileSync(join(runDir, 'report', 'report.md'), 'utf8');
    assert.match(md, /tied-run-pq/);
  });

  test('a partial run is refused without --partial; with it every configuration is scored on the queries it covers', async () => {
    const short = join(dir, 'short.run');
    writeFileSync(short, readFileSync(files['toy.trec'], 'utf8').split('\n').filter((l) => l && !l.startsWith('q_0002 ')).join('\n') + '\n');
    await assert.rejects(cli('import-rankings', '--run', runDir, short, '--name', 'short'), (e: StopError) => e.exitCode === 2 && /1 benchmark queries missing \(q_0002\).*--partial/.test(e.message));
    await cli('import-rankings', '--run', runDir, short, '--name', 'short', '--partial');
    const r = await scoreRun({ runDir, oracle, configs: ['short', 'toy'], replicates: 200, seed: 3 });
    assert.equal(r.report.stats.n_queries, 3);
    assert.deepEqual(r.manifest.query_subset, { query_ids: ['q_0001', 'q_0003', 'q_0004'], by: ['short'], of: 4 });
    const [s, t] = readScoredConfigs(runDir, ['short', 'toy']);
    assertClose(s.queries, t.queries, 'short vs toy on the covered queries');
    assert.deepEqual(t.queries.map((q) => q.query_id), ['q_0001', 'q_0003', 'q_0004']);
  });

  test('bad files fail with one line naming the problem, exit 2, and nothing written', async () => {
    const base = readFileSync(files['toy.trec'], 'utf8').trim().split('\n');
    const bad: [string, string, RegExp][] = [
      ['unknown.run', [...base, 'q_0001 Q0 nowhere_d9 10 0.5 x'].join('\n'), /1 unknown corpus ids \(unknown\.run:37: nowhere_d9\)/],
      ['unknownq.run', [...base, 'q_9999 Q0 q_0001_d1 1 0.5 x'].join('\n'), /1 unknown query ids \(unknownq\.run:37: q_9999\)/],
      ['nan.run', base.map((l, i) => (i === 4 ? l.replace(/ \S+ other-system$/, ' NaN other-system') : l)).join('\n'), /1 scores that are not finite numbers \(nan\.run:5: NaN\)/],
      ['dup.run', [...base, base[0]].join('\n'), /1 duplicate \(query, corpus\) pairs \(dup\.run:37: .* again \(first at dup\.run:1\)\)/],
      ['fields.run', [...base, 'q_0001 Q0 q_0001_d1'].join('\n'), /fields\.run:37: expected "qid Q0 docid rank score \[tag\]"/],
      ['ranks.run', base.map((l, i) => (i === 0 ? l.replace(/ (\d+) (\S+) other-system$/, ' 1 $2 other-system') : l)).join('\n') + '\n', /ranks that contradict the scores/],
    ];
    for (const [name, text, re] of bad) {
      const f = join(dir, name);
      writeFileSync(f, text + '\n');
      await assert.rejects(cli('import-rankings', '--run', runDir, f, '--name', `bad-${name}`), (e: StopError) => {
        assert.equal(e.exitCode, 2, name);
        assert.match(e.message, re, name);
        assert.ok(!e.message.includes('\n'), `${name}: one line`);
        return true;
      });
      assert.ok(!existsSync(join(runDir, 'embeddings', `bad-${name}`)), `${name}: nothing written`);
    }
    // Vectors: a NaN value, a corpus item without a vector, an id the benchmark does not have.
    const tq = readMatrix(join(runDir, 'embeddings', 'tied', 'queries.arrow'));
    const tc = readMatrix(join(runDir, 'embeddings', 'tied', 'corpus.arrow'));
    const vec = (name: string, ids: string[], data: Float32Array) => {
      writeFileSync(join(dir, `${name}.npy`), npyBytes(ids.length, tq.dims, data));
      writeFileSync(join(dir, `${name}.txt`), ids.join('\n'));
      return [join(dir, `${name}.npy`), '--ids', join(dir, `${name}.txt`)];
    };
    const nan = new Float32Array([...tq.data, ...tc.data]);
    nan[3] = NaN;
    const vbad: [string[], RegExp][] = [
      [vec('vnan', [...tq.ids, ...tc.ids], nan), /1 vectors with values that are not finite numbers \(vnan\.npy row 1: q_0004\)/],
      [vec('vshort', [...tq.ids, ...tc.ids.slice(1)], new Float32Array([...tq.data, ...tc.data.subarray(tq.dims)])), /1 corpus items without a vector \(q_0001_canonical\)/],
      [vec('vunknown', [...tq.ids, ...tc.ids.slice(0, -1), 'zz'], new Float32Array([...tq.data, ...tc.data])), /1 unknown ids \(vunknown\.npy row 13: zz\)/],
    ];
    for (const [args, re] of vbad) {
      await assert.rejects(cli('import-vectors', '--run', runDir, ...args, '--name', 'vbad'), (e: StopError) => e.exitCode === 2 && re.test(e.message) && !e.message.includes('\n'));
    }
    assert.ok(!existsSync(join(runDir, 'embeddings', 'vbad')));
    assert.deepEqual(readdirSync(join(runDir, 'embeddings')).filter((n) => n.startsWith('.')), [], 'no half-written folder left');
    // Names: an existing configuration, the BM25 baseline.
    await assert.rejects(cli('import-rankings', '--run', runDir, files['toy.trec'], '--name', 'toy'), (e: StopError) => e.exitCode === 2 && /exists: pass --replace/.test(e.message));
    await assert.rejects(cli('import-rankings', '--run', runDir, files['toy.trec'], '--name', 'bm25'), (e: StopError) => e.exitCode === 2 && /BM25/.test(e.message));
  });
});
