// The one-line time breakdown build and score end with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBreakdown } from '../../core/timing/breakdown.ts';

test('breakdown: phases in order with their seconds, the total, then executions skipped / run / cached', () => {
  const line = formatBreakdown({
    phases: [['import + precheck', 1.04], ['verification', 31.96], ['gate', 4.5]],
    total_s: 37.5,
    executions: { skipped: 8337, run: 1276, cached: 67, run_suite_s: 20.25 },
  });
  assert.equal(line, 'time: import + precheck 1.0 s, verification 32.0 s, gate 4.5 s; total 37.5 s | executions: 8,337 skipped, 1,276 run (20.3 s of suites), 67 cached');
  assert.equal(line.includes('\n'), false);
});
