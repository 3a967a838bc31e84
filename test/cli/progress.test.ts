import { test } from 'node:test';
import assert from 'node:assert/strict';
import { counter, formatCount } from '../../cli/progress.ts';
import { verbosity } from '../../cli/verbosity.ts';

test('progress lines: counts, rate since the start, ETA at that rate', () => {
  assert.equal(formatCount('executing', 0, 400, 0), 'executing 0/400');
  // 120 done in 4 s: 30/s; 280 left: 9.33 s → 0:09.
  assert.equal(formatCount('executing', 120, 400, 4000), 'executing 120/400 (30/s, ETA 0:09)');
  // Slow work: 3 done in 4 s: 0.75/s; 97 left: 129.3 s → 2:09.
  assert.equal(formatCount('build', 3, 100, 4000), 'build 3/100 (0.8/s, ETA 2:09)');
  assert.equal(formatCount('gate', 10, 10, 2000), 'gate 10/10 (5.0/s, ETA 0:00)');
});

/** A sink whose clock the test moves. */
function fakeSink(tty: boolean) {
  const out: string[] = [];
  let now = 1_000;
  return { sink: { tty, write: (s: string) => void out.push(s), now: () => now, every: 10_000 }, out, tick: (ms: number) => (now += ms) };
}

test('on a terminal: one self-overwriting bar with counts, rate and ETA, throttled; the finished bar stays as a line', () => {
  const f = fakeSink(true);
  const c = counter('executing', f.sink);
  c(0, 100);
  f.tick(50);
  c(5, 100); // within 100 ms of the last draw: skipped
  f.tick(1950);
  c(40, 100); // 40 in 2 s: 20/s, 60 left: 0:03
  f.tick(3000);
  c(100, 100);
  c(100, 100); // polled again once done: the finished line is not repeated
  c.done();
  assert.deepEqual(f.out, [
    '\r\x1b[Kexecuting [........................] 0/100',
    '\r\x1b[Kexecuting [#########...............] 40/100 (20/s, ETA 0:03)',
    '\r\x1b[Kexecuting [########################] 100/100 (20/s, ETA 0:00)\n',
  ]);
});

test('in a log: plain lines, the first, at most one per interval, and the last; none twice', () => {
  const f = fakeSink(false);
  const c = counter('build: executing', f.sink);
  c(10, 400); // a resumed round: the rate counts from here
  f.tick(4000);
  c(130, 400); // within 10 s: no line
  f.tick(6000);
  c(210, 400); // 200 in 10 s: 20/s, 190 left: 0:10
  f.tick(10_000);
  c(210, 400); // nothing moved: no line
  f.tick(9000);
  c(400, 400); // the end, whatever the interval
  c(400, 400);
  c.done();
  assert.deepEqual(f.out, ['build: executing 10/400\n', 'build: executing 210/400 (20/s, ETA 0:10)\n', 'build: executing 400/400 (13/s, ETA 0:00)\n']);
});

test('--quiet: no progress at all', () => {
  const f = fakeSink(false);
  verbosity.level = 'quiet';
  try {
    const c = counter('x', f.sink);
    c(1, 2);
    c(2, 2);
  } finally {
    verbosity.level = 'normal';
  }
  assert.deepEqual(f.out, []);
});
