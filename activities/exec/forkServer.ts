import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { SandboxLayers } from './types.ts';

/** What goes over the wire to infra/runner/sandbox.py (see its docstring). */
export interface WireRequest {
  id: number;
  code: string;
  suite: unknown;
  timeout_s: number;
}
export interface WireResult {
  id: number;
  outcomes: string[];
  judged: ('parent' | 'child')[];
  wall_ms: number;
  /** The child's CPU time (user + system); absent from servers of older runners. */
  cpu_ms?: number;
  sandbox: SandboxLayers;
  infra_error?: string;
}

/** Thrown when the fork server died, stopped answering or broke the protocol; the caller replaces it. */
export class ForkServerDied extends Error {
  readonly code = 'FORK_SERVER_DIED';
  /** true when it stopped answering and the watchdog killed it; false when it died or broke the protocol. */
  constructor(message: string, readonly hung = false) {
    super(message);
  }
}

/** The server answered this one request with an `error` frame: the request failed, the server goes on. */
export class ForkServerRefused extends Error {
  readonly code = 'FORK_SERVER_REFUSED';
}

/** infra/runner/sandbox_zygote.py's WALL_BACKSTOP_FACTOR / _EXTRA_S: the most wall time one suite may take. */
export const WALL_BACKSTOP_FACTOR = 10;
export const WALL_BACKSTOP_EXTRA_S = 5;

/** infra/runner/sandbox.py's REQUEST_CAP: the server stops on a larger request frame, so none is ever sent. */
export const REQUEST_CAP = 64 * 1024 * 1024;

/** The request is over REQUEST_CAP: it was not sent, and the server goes on. The request's own failure. */
export class RequestTooLarge extends Error {
  readonly code = 'REQUEST_TOO_LARGE';
}

/** The largest frame accepted from the server (its own caps keep real results far below this). */
export const FRAME_CAP = 256 * 1024 * 1024;

/** Checks a result frame's shape; returns a one-line reason when it is not a well-formed result. */
export function resultProblem(msg: unknown, expectedId: number): string | null {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return 'frame is not a JSON object';
  const m = msg as Record<string, unknown>;
  if (m.id !== expectedId) return `frame answers request ${String(m.id)}, expected ${expectedId}`;
  if (typeof m.error === 'string') return null;
  if (!Array.isArray(m.outcomes) || !m.outcomes.every((o) => typeof o === 'string')) return 'frame has no outcomes';
  if (!Array.isArray(m.judged) || m.judged.length !== m.outcomes.length || !m.judged.every((j) => j === 'parent' || j === 'child')) return 'frame has no judged list matching its outcomes';
  if (typeof m.wall_ms !== 'number') return 'frame has no wall_ms';
  if (m.cpu_ms !== undefined && typeof m.cpu_ms !== 'number') return 'frame has a non-number cpu_ms';
  if (m.infra_error !== undefined && typeof m.infra_error !== 'string') return 'frame has a non-string infra_error';
  return null;
}

/**
 * One long-lived Python fork server, one request at a time. Frames are 4-byte big-endian length + JSON object.
 * Incoming bytes are kept as a list of chunks and joined once per frame (never re-concatenated per chunk).
 * Anything that is not a well-formed frame (over the cap, not JSON, wrong id or shape) kills the server: the
 * stream cannot be trusted after it. A watchdog kills the server if a request outlives its own timeout by
 * `graceMs` (the server enforces the timeout itself; the watchdog covers a server that is itself stuck).
 */
export class ForkServer {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pending: { id: number; resolve: (r: WireResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | null = null;
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private dead: Error | null = null;
  /** The server's own layers (view, Landlock ABI, uid), from its hello frame. */
  hello: Record<string, unknown> = {};
  stderrTail = '';

  private constructor(private readonly proc: ChildProcessWithoutNullStreams, private readonly graceMs: number) {
    proc.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    proc.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000);
    });
    proc.on('exit', (code, signal) => this.fail(new ForkServerDied(`fork server exited (code ${code}, signal ${signal}): ${this.stderrTail.trim()}`)));
    proc.on('error', (err) => this.fail(new ForkServerDied(`fork server failed to start: ${err.message}`)));
    proc.stdin.on('error', () => { /* reported through 'exit' */ });
  }

  /** Resolves once the server's hello frame arrives. */
  static async start(python: string, script: string, graceMs = 10_000): Promise<ForkServer> {
    const proc = spawn(python, ['-I', script, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    const server = new ForkServer(proc, graceMs);
    await new Promise<void>((resolve, reject) => {
      server.readyWaiter = { resolve, reject };
    });
    return server;
  }

  get alive(): boolean {
    return this.dead === null;
  }

  /** The process id, for tests that kill it from outside. */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  run(req: WireRequest): Promise<WireResult> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.pending) return Promise.reject(new Error('ForkServer.run: one request at a time'));
    // Checked here, per request, before anything is written: a frame over the server's cap would end the server
    // and every suite after it in its queue.
    const body = Buffer.from(JSON.stringify(req), 'utf8');
    if (body.length > REQUEST_CAP) return Promise.reject(new RequestTooLarge(`request of ${body.length} bytes exceeds the cap of ${REQUEST_CAP}`));
    return new Promise<WireResult>((resolve, reject) => {
      // The server's own wall backstop (infra/runner/sandbox_zygote.py: a starved child may run that long on a
      // loaded machine, since its limit does not count time waiting for a CPU; the judge child's backstop is the
      // candidate's plus its own CPU limit (at most 10 s + twice the timeout), which twice the candidate's plus the
      // grace covers.
      const backstopS = 2 * (WALL_BACKSTOP_FACTOR * req.timeout_s + WALL_BACKSTOP_EXTRA_S);
      const timer = setTimeout(() => {
        this.fail(new ForkServerDied(`fork server did not answer within ${backstopS}s + grace`, true));
      }, backstopS * 1000 + this.graceMs);
      this.pending = { id: req.id, resolve, reject, timer };
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length);
      this.proc.stdin.write(head);
      this.proc.stdin.write(body);
    });
  }

  async close(): Promise<void> {
    if (this.dead) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.stdin.end();
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(t);
  }

  private onData(chunk: Buffer): void {
    if (this.dead) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= 4) {
      const size = this.peekSize();
      if (size > FRAME_CAP) return this.fail(new ForkServerDied(`fork server sent a frame of ${size} bytes (cap ${FRAME_CAP})`));
      if (this.buffered < 4 + size) return;
      const frame = this.take(4 + size).subarray(4);
      let msg: unknown;
      try {
        msg = JSON.parse(frame.toString('utf8'));
      } catch {
        return this.fail(new ForkServerDied('fork server sent a frame that is not JSON'));
      }
      if (this.readyWaiter) {
        if (typeof msg !== 'object' || msg === null || (msg as { ready?: unknown }).ready !== true) return this.fail(new ForkServerDied('fork server did not start with its hello frame'));
        this.hello = ((msg as { layers?: Record<string, unknown> }).layers) ?? {};
        this.readyWaiter.resolve();
        this.readyWaiter = null;
        continue;
      }
      if (!this.pending) return this.fail(new ForkServerDied('fork server sent a frame nobody asked for'));
      const problem = resultProblem(msg, this.pending.id);
      if (problem) return this.fail(new ForkServerDied(`fork server sent a malformed result: ${problem}`));
      const { resolve, reject, timer } = this.pending;
      clearTimeout(timer);
      this.pending = null;
      const m = msg as WireResult & { error?: string };
      if (typeof m.error === 'string') reject(new ForkServerRefused(m.error));
      else resolve(m);
    }
  }

  private peekSize(): number {
    if (this.chunks[0].length < 4) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].readUInt32BE(0);
  }

  /** Removes and returns the first n buffered bytes, joining chunks once. */
  private take(n: number): Buffer {
    const parts: Buffer[] = [];
    let need = n;
    while (need > 0) {
      const c = this.chunks[0];
      if (c.length <= need) {
        parts.push(c);
        this.chunks.shift();
        need -= c.length;
      } else {
        parts.push(c.subarray(0, need));
        this.chunks[0] = c.subarray(need);
        need = 0;
      }
    }
    this.buffered -= n;
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, n);
  }

  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    this.proc.kill('SIGKILL');
    this.chunks = [];
    this.buffered = 0;
    this.readyWaiter?.reject(err);
    this.readyWaiter = null;
    if (this.pending) {
      clearTimeout(this.pending.timer);
      this.pending.reject(err);
      this.pending = null;
    }
  }
}
