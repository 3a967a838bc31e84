/**
 * Progress for counted work (build rounds' and scoring's executions), with rate and ETA. On a terminal:
 * one self-overwriting bar on stderr, throttled so a 5,000-item loop costs nothing. Otherwise (logs, CI): a plain
 * line when the work starts, then at most one every `every` ms, and one when it is done, so a log shows that
 * minutes of work are moving without a line per item. `--quiet` turns both off (cli/verbosity.ts).
 */
import { verbosity } from './verbosity.ts';

export interface ProgressSink {
  /** True: a terminal (the bar); false: plain lines. */
  tty: boolean;
  write: (s: string) => void;
  now: () => number;
  /** Plain mode: the least time between two lines. */
  every: number;
}

const stderrSink = (): ProgressSink => ({ tty: !!process.stderr.isTTY, write: (s) => void process.stderr.write(s), now: Date.now, every: 10_000 });

/** `1:05` from seconds. */
const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

/** ` (30/s, ETA 0:09)` for `did` items in `ms` with `left` to go; empty before anything was counted. */
function rateOf(did: number, left: number, ms: number): string {
  if (did <= 0 || ms <= 0) return '';
  const rate = (did * 1000) / ms;
  return ` (${rate >= 10 ? rate.toFixed(0) : rate.toFixed(1)}/s, ETA ${clock(Math.max(0, Math.round(left / rate)))})`;
}

/** `label 120/400 (35.2/s, ETA 0:08)`: counts, rate since the start and the time left at that rate. */
export function formatCount(label: string, done: number, total: number, elapsedMs: number, counted = done): string {
  return `${label} ${done}/${total}${rateOf(counted, total - done, elapsedMs)}`;
}

/** `label [######..................] 120/400 (30/s, ETA 0:09)`: formatCount after a bar of `width` cells. */
export function formatBar(label: string, done: number, total: number, elapsedMs: number, counted = done, width = 24): string {
  const filled = total > 0 ? Math.min(width, Math.floor((done / total) * width)) : 0;
  return formatCount(`${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`, done, total, elapsedMs, counted);
}

export type Counter = ((done: number, total: number) => void) & { done: () => void };

/**
 * A progress display for `(done, total)` callbacks: the bar on a terminal, plain lines otherwise (see the header).
 * The rate counts from the first call, so work done before it (a resumed round) does not inflate it.
 */
export function counter(label: string, sink: ProgressSink = stderrSink()): Counter {
  let start: number | null = null;
  let base = 0;
  let lastDraw = -Infinity;
  let lastLine = -Infinity;
  let shown = '';
  let printed = -1;
  const f = ((done: number, total: number) => {
    if (verbosity.level === 'quiet') return;
    const t = sink.now();
    if (start === null) [start, base] = [t, done];
    const finished = done >= total;
    if (sink.tty) {
      if ((t - lastDraw < 100 && !finished) || (finished && done === printed)) return;
      if (finished) printed = done;
      lastDraw = t;
      // A finished bar stays as a line of its own (what follows it is not written onto it).
      const bar = formatBar(label, done, total, t - start, done - base);
      sink.write(finished ? `\r\x1b[K${bar}\n` : `\r\x1b[K${bar}`);
      shown = finished ? '' : bar;
      return;
    }
    // Plain lines: the first, then one per `every` (a second when verbose), and the last; never one twice.
    if (!finished && t - lastLine < (verbosity.level === 'verbose' ? 1_000 : sink.every)) return;
    if (done === printed) return;
    [lastLine, printed] = [t, done];
    sink.write(`${formatCount(label, done, total, t - start, done - base)}\n`);
  }) as Counter;
  f.done = () => {
    if (sink.tty && shown) sink.write('\r\x1b[K');
    shown = '';
  };
  return f;
}

/** One self-overwriting status line on stderr when it is a terminal; silent otherwise (free text, no counts). */
export function stderrProgress(): ((msg: string) => void) & { done: () => void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  const f = ((msg: string) => {
    if (!tty || verbosity.level === 'quiet') return;
    const now = Date.now();
    if (now - last < 100) return;
    last = now;
    process.stderr.write(`\r\x1b[K${msg}`);
  }) as ((msg: string) => void) & { done: () => void };
  f.done = () => {
    if (tty) process.stderr.write('\r\x1b[K');
  };
  return f;
}
