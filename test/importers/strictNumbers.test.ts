/**
 * Inputs that used to be read as something they are not (issue 37): a score `0x10` was read as 16 and `inf` reported
 * as NaN; a `.gz` file that is not gzip was read as text. Each is now refused with its own text and the file named.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readRunFile } from '../../activities/importers/runFile.ts';
import { readJsonl } from '../../activities/importers/jsonlReader.ts';
import { checkRun } from '../../core/ranking/imported.ts';

describe('numbers and archives read as what they are', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-strict-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('TREC and CSV scores: decimals and exponents read, 0x10 / inf / blank refused and quoted as written', () => {
    const trec = join(dir, 'a.run');
    writeFileSync(trec, ['q1 Q0 c1 1 12.5 sys', 'q1 Q0 c2 2 1e-3 sys', 'q1 Q0 c3 3 0x10 sys', 'q1 Q0 c4 4 inf sys', 'q1 Q0 c5 5 -Infinity sys', 'q1 Q0 c6 6 .5 sys'].join('\n'));
    const rows = readRunFile(trec);
    assert.deepEqual(rows.map((r) => r.score), [12.5, 0.001, NaN, Infinity, -Infinity, 0.5]);
    const check = checkRun(rows, ['q1'], new Set(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']));
    assert.match(check.error ?? '', /3 scores that are not finite numbers \(a\.run:3: 0x10; a\.run:4: inf; a\.run:5: -Infinity\)/);

    const csv = join(dir, 'b.csv');
    writeFileSync(csv, 'query_id,corpus_id,score\nq1,c1,0x1A\nq1,c2, \nq1,c3,7\n');
    const c = readRunFile(csv);
    assert.deepEqual(c.map((r) => r.score), [NaN, NaN, 7]);
    assert.deepEqual(c.map((r) => r.score_text), ['0x1A', '', undefined]);
  });

  test('a .gz that is not gzip is refused naming the file; a real one is read', () => {
    const fake = join(dir, 'tasks.jsonl.gz');
    writeFileSync(fake, '{"task_id": "a"}\n');
    assert.throws(() => readJsonl(fake), /tasks\.jsonl\.gz: named \.gz but not gzip/);
    const real = join(dir, 'real.jsonl.gz');
    writeFileSync(real, gzipSync('{"task_id": "a"}\n'));
    assert.equal(readJsonl(real).records.length, 1);
  });
});
