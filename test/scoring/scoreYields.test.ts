/**
 * Scoring gives the event loop a turn between its synchronous stretches (activities/scoring/yieldToLoop.ts): as a
 * Temporal activity its heartbeats are timers on the same thread, and at load ~25 one long stretch failed an
 * attempt with "activity Heartbeat timeout". Counted here with a setImmediate ticker: it advances only when the
 * loop turns, so a stretch that never yields leaves it where it was.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { scoreRun } from '../../activities/scoring/scoreRun.ts';
import { writeReport } from '../../activities/scoring/writeReport.ts';
import { writeTinyRun } from './fixtures/tinyBenchmark.ts';
import { loopTurns } from '../support/loopTurns.ts';

let dir: string;
let runDir: string;
let oracle: Oracle;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'execretrieval-yields-'));
  runDir = join(dir, 'tiny');
  writeTinyRun(runDir);
  oracle = await openOracle({ cachePath: join(dir, 'exec-cache.sqlite'), concurrency: 2 });
});
after(async () => {
  await oracle?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('scoreRun turns the event loop between ranking one configuration and the next, and the report between its files', async () => {
  const ticker = loopTurns();
  const atRanked: number[] = [];
  try {
    await scoreRun({ runDir, oracle, replicates: 200, seed: 1, log: (m) => { if (m.startsWith('ranked ')) atRanked.push(ticker.turns()); } });
  } finally {
    ticker.stop();
  }
  // The fixture has three configurations that rank (canonical-first, toy, bm25).
  assert.equal(atRanked.length, 3);
  for (let i = 1; i < atRanked.length; i++) assert.ok(atRanked[i] > atRanked[i - 1], `no loop turn between ranking configuration ${i} and ${i + 1}: ${atRanked}`);

  const during = loopTurns();
  const before = during.turns();
  const report = await writeReport(runDir, { replicates: 200, seed: 1, alpha: 0.05 });
  const turns = during.turns() - before;
  during.stop();
  // One turn at least before the statistics and before each of the seven report files.
  assert.ok(turns >= 8, `writeReport turned the loop ${turns} times over ${report.files.length} files`);
});
