import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import { pythonExecutable } from '../python/interpreter.ts';
import { ForkServer, ForkServerDied, ForkServerRefused, type WireRequest } from './forkServer.ts';
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
  private idle: number[] = [];
  private waiters: ((slot: number) => void)[] = [];
  private nextId = 1;
  /** The layers reported by the latest suite that ran. */
  lastLayers: SandboxLayers | null = null;

  constructor(readonly size = availableParallelism(), private readonly python = pythonExecutable()) {
    this.servers = new Array(size).fill(null);
    for (let i = 0; i < size; i++) this.idle.push(i);
  }

  async run(code: string, suite: unknown, nTests: number, timeoutS: number): Promise<RawRun> {
    const slot = await this.acquire();
    const failed = (why: string): RawRun => ({ outcomes: new Array(nTests).fill('ERROR: SandboxDied'), wall_ms: 0, cpu_ms: 0, infraError: why, layers: {} });
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
        if (err instanceof ForkServerRefused) return failed(`sandbox refused the request: ${err.message}`);
        if (!(err instanceof ForkServerDied)) throw err;
        this.servers[slot] = null;
        return failed(err.message.split('\n')[0]);
      }
    } finally {
      this.release(slot);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s?.close()));
    this.servers.fill(null);
  }

  /** The live server in a slot, for tests that attack it from outside. */
  serverIn(slot: number): ForkServer | null {
    return this.servers[slot];
  }

  private async serverAt(slot: number): Promise<ForkServer> {
    const existing = this.servers[slot];
    if (existing?.alive) return existing;
    const server = await ForkServer.start(this.python, SANDBOX_SCRIPT);
    this.servers[slot] = server;
    return server;
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
