/** Counts turns of the event loop (a setImmediate chain) until stopped: a long synchronous stretch shows as none. */
export function loopTurns(): { turns: () => number; stop: () => void } {
  let n = 0;
  let on = true;
  const tick = () => {
    n++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => n, stop: () => (on = false) };
}
