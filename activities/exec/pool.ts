import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import { pythonExecutable } from '../python/interpreter.ts';
import { ForkServer, ForkServerDied, ForkServerRefused, RequestTooLarge, type WireRequest } from './forkServer.ts';
import { CallsSuite } from '../../schemas/exec.ts';
import { prepareCalls } from './callsBuild.ts';
import type { SandboxLayers } from './types.ts';

export const RUNNER_DIR = join(projectRoot(), 'infra', 'runner');
export const SANDBOX_SCRIPT = join(RUNNER_DIR, 'sandbox.py');

/** Changes whenever any sandbox module changes, so cached results from another sandbox are never reused. */
export function runnerVersion(): string {
  const h = createHash('sha256');
  for (const f of readdirSync(RUNNER_DIR).filter((n) => n.endsWith('.py')).sort()) h.update(`${f}\0`).update(readFileSync(join(RUNNER_DIR, f))).update('\0');
  return `sandbox-2+${h.digest('hex').slice(0, 16)}`;
}

export interface RawRun {
  outcomes: string[];
  /** How each outcome was judged (see ExecResult.judged); absent when infrastructure failed. */
  judged?: ('parent' | 'child')[];
  wall_ms: number;
  /** The child's CPU time (0 when infrastructure failed). */
  cpu_ms: number;
  /** Set when infrastructure, not the code, decided the outcomes: they must not be cached or scored. */
  infraError?: string;
  layers: SandboxLayers;
}

/**
 * N fork servers (default: one per core), each serving one suite at a time. A server that dies, hangs or breaks
 * the protocol is replaced; the suite it was running is reported all `ERROR: SandboxDied` with `infraError`
 * set, never as passed and never as the code's outcome. An `error` frame fails only its own request.
 */
export class SandboxPool {
  private servers: (ForkServer | null)[];
  /** A server's start while it is under way (by warm() or a run), so that a slot never starts two. */
  private starting: (Promise<ForkServer> | null)[];
  private idle: number[] = [];
  private waiters: ((slot: number) => void)[] = [];
  private nextId = 1;
  /** The layers reported by the latest suite that ran. */
  lastLayers: SandboxLayers | null = null;

  constructor(readonly size = availableParallelism(), private readonly python = pythonExecutable()) {
    this.servers = new Array(size).fill(null);
    this.starting = new Array(size).fill(null);
    for (let i = 0; i < size; i++) this.idle.push(i);
  }

  async run(code: string, suite: unknown, nTests: number, timeoutS: number): Promise<RawRun> {
    const failed = (why: string): RawRun => ({ outcomes: new Array(nTests).fill('ERROR: SandboxDied'), wall_ms: 0, cpu_ms: 0, infraError: why, layers: {} });
    // A calls suite's TypeScript is transpiled and its Go compiled here, on the machine that runs it (callsBuild.ts).
    const calls = CallsSuite.safeParse(suite);
    if (calls.success) {
      let prepared;
      try {
        prepared = await prepareCalls(code, calls.data);
      } catch (err) {
        return failed((err as Error).message.split('\n')[0]);
      }
      if ('outcome' in prepared) return { outcomes: new Array(nTests).fill(prepared.outcome), judged: new Array(nTests).fill('parent'), wall_ms: 0, cpu_ms: 0, layers: {} };
      code = prepared.code;
    }
    const slot = await this.acquire();
    try {
      let server: ForkServer;
      try {
        server = await this.serverAt(slot);
      } catch (err) {
        return failed(`fork server could not start: ${(err as Error).message}`.split('\n')[0]);
      }
      const req: WireRequest = { id: this.nextId++, code, suite, timeout_s: timeoutS };
      try {
        const res = await server.run(req);
        if (res.outcomes.length !== nTests) return failed(`sandbox answered ${res.outcomes.length} outcomes for ${nTests} tests`);
        this.lastLayers = res.sandbox ?? {};
        return { outcomes: res.outcomes, judged: res.judged, wall_ms: res.wall_ms, cpu_ms: res.cpu_ms ?? 0, infraError: res.infra_error, layers: this.lastLayers };
      } catch (err) {
        // The code (or suite) is too large to send: its own failure, cached as such; the server was never touched.
        if (err instanceof RequestTooLarge) return { outcomes: new Array(nTests).fill('ERROR: RequestTooLarge'), judged: new Array(nTests).fill('parent'), wall_ms: 0, cpu_ms: 0, layers: {} };
        if (err instanceof ForkServerRefused) return failed(`sandbox refused the request: ${err.message}`);
        if (!(err instanceof ForkServerDied)) throw err;
        this.servers[slot] = null;
        return failed(err.message.split('\n')[0]);
      }
    } finally {
      this.release(slot);
    }
  }

  /**
   * Starts every slot's server now, without waiting for a suite (scoring calls it before ranking, so that the
   * servers' start-up, about 0.25 s each, runs beside it). A server that fails to start here is started again by
   * the first run in its slot, which reports that failure as before.
   */
  async warm(): Promise<void> {
    await Promise.all(this.servers.map((_, slot) => this.serverAt(slot).then(() => {}, () => {})));
  }

  async close(): Promise<void> {
    // A start still under way (warm()) is waited for and closed too: it must not outlive the pool.
    await Promise.allSettled(this.starting.filter((p) => p !== null));
    await Promise.all(this.servers.map((s) => s?.close()));
    this.servers.fill(null);
  }

  /** The live server in a slot, for tests that attack it from outside. */
  serverIn(slot: number): ForkServer | null {
    return this.servers[slot];
  }

  private serverAt(slot: number): Promise<ForkServer> {
    const existing = this.servers[slot];
    if (existing?.alive) return Promise.resolve(existing);
    const pending = this.starting[slot];
    if (pending) return pending;
    const start = ForkServer.start(this.python, SANDBOX_SCRIPT)
      .then((server) => {
        this.servers[slot] = server;
        return server;
      })
      .finally(() => {
        this.starting[slot] = null;
      });
    this.starting[slot] = start;
    return start;
  }

  private acquire(): Promise<number> {
    const slot = this.idle.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(slot: number): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(slot);
    else this.idle.push(slot);
  }
}
