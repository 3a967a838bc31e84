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
