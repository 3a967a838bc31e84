import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import { pythonExecutable } from '../python/interpreter.ts';
import { ForkServer, ForkServerDied, type WireRequest } from './forkServer.ts';

export const SANDBOX_SCRIPT = join(projectRoot(), 'infra', 'runner', 'sandbox.py');

/** Changes whenever the sandbox changes, so cached results from another sandbox are never reused. */
export function runnerVersion(): string {
  const digest = createHash('sha256').update(readFileSync(SANDBOX_SCRIPT)).digest('hex').slice(0, 16);
  return `sandbox-1+${digest}`;
}

export interface RawRun {
  outcomes: string[];
  wall_ms: number;
  /** The server died under this suite: the outcomes say nothing about the code, so they must not be cached. */
  infraFailure: boolean;
}

/**
 * N fork servers (default: one per core), each serving one suite at a time. A server that dies or hangs is
 * replaced; the suite it was running is reported as all TIMEOUT (if it hung) or all ERROR, never as passed.
 */
export class SandboxPool {
  private servers: (ForkServer | null)[];
  private idle: number[] = [];
  private waiters: ((slot: number) => void)[] = [];
  private nextId = 1;

  constructor(readonly size = availableParallelism(), private readonly python = pythonExecutable()) {
    this.servers = new Array(size).fill(null);
    for (let i = 0; i < size; i++) this.idle.push(i);
  }

  async run(code: string, suite: unknown, nTests: number, timeoutS: number): Promise<RawRun> {
    const slot = await this.acquire();
    try {
      const server = await this.serverAt(slot);
      const req: WireRequest = { id: this.nextId++, code, suite, timeout_s: timeoutS };
      try {
        const res = await server.run(req);
        if (res.error || !res.outcomes) throw new Error(`sandbox rejected the request: ${res.error ?? 'no outcomes'}`);
        return { outcomes: res.outcomes, wall_ms: res.wall_ms ?? 0, infraFailure: false };
      } catch (err) {
        if (!(err instanceof ForkServerDied)) throw err;
        this.servers[slot] = null;
        // A hung server is the suite's timeout (a real outcome of the code); a dead one is infrastructure.
        return { outcomes: new Array(nTests).fill(err.hung ? 'TIMEOUT' : 'ERROR: SandboxDied'), wall_ms: timeoutS * 1000, infraFailure: !err.hung };
      }
    } finally {
      this.release(slot);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s?.close()));
    this.servers.fill(null);
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
