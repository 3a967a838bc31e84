import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCount } from '../../cli/progress.ts';

test('progress lines: counts, rate since the start, ETA at that rate', () => {
  assert.equal(formatCount('executing', 0, 400, 0), 'executing 0/400');
  // 120 done in 4 s: 30/s; 280 left: 9.33 s → 0:09.
  assert.equal(formatCount('executing', 120, 400, 4000), 'executing 120/400 (30/s, ETA 0:09)');
  // Slow work: 3 done in 4 s: 0.75/s; 97 left: 129.3 s → 2:09.
  assert.equal(formatCount('build', 3, 100, 4000), 'build 3/100 (0.8/s, ETA 2:09)');
  assert.equal(formatCount('gate', 10, 10, 2000), 'gate 10/10 (5.0/s, ETA 0:00)');
});
