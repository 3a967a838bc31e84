/**
 * One turn of the event loop. Scoring is long stretches of synchronous work (ranking a configuration, the
 * bootstrap, each report file); as a Temporal activity its heartbeats are timers on this same thread, so a
 * stretch longer than the heartbeat timeout (seen at load ~25) fails the attempt as "activity Heartbeat timeout"
 * while the worker is alive. Awaiting this between stretches lets due timers (the heartbeat) and I/O run.
 */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
