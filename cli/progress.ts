/**
 * One self-overwriting status line on stderr when it is a terminal; silent otherwise (logs and CI stay
 * clean). Throttled so a 5,000-item loop costs nothing.
 */
export function stderrProgress(): ((msg: string) => void) & { done: () => void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  const f = ((msg: string) => {
    if (!tty) return;
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

/** `label 120/400 (35.2/s, ETA 0:08)`: counts, rate since the start and the time left at that rate. */
export function formatCount(label: string, done: number, total: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const left = rate > 0 ? Math.max(0, Math.round((total - done) / rate)) : null;
  const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  return `${label} ${done}/${total}${done > 0 && elapsedMs > 0 ? ` (${rate >= 10 ? rate.toFixed(0) : rate.toFixed(1)}/s, ETA ${left === null ? '?' : clock(left)})` : ''}`;
}

/** A progress line for counted work (`(done, total)` callbacks), with rate and ETA; same TTY rules as above. */
export function stderrCounter(label: string): ((done: number, total: number) => void) & { done: () => void } {
  const line = stderrProgress();
  const start = Date.now();
  const f = ((done: number, total: number) => line(formatCount(label, done, total, Date.now() - start))) as ((done: number, total: number) => void) & { done: () => void };
  f.done = line.done;
  return f;
}
