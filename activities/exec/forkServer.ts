import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** What goes over the wire to infra/runner/sandbox.py (see its docstring). */
export interface WireRequest {
  id: number;
  code: string;
  suite: unknown;
  timeout_s: number;
}
export interface WireResult {
  id: number;
  outcomes?: string[];
  wall_ms?: number;
  error?: string;
}

/** Thrown when the fork server itself died or stopped answering; the caller restarts it. */
export class ForkServerDied extends Error {
  readonly code = 'FORK_SERVER_DIED';
  /** true when it stopped answering and the watchdog killed it; false when it died by itself. */
  constructor(message: string, readonly hung = false) {
    super(message);
  }
}

/**
 * One long-lived Python fork server, one request at a time. Frames are 4-byte big-endian length + JSON.
 * A watchdog kills the server if a request outlives its own timeout by `graceMs` (the server enforces the
 * timeout itself; the watchdog covers a server that is itself stuck).
 */
export class ForkServer {
  private buf: Buffer = Buffer.alloc(0);
  private pending: { resolve: (r: WireResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | null = null;
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private dead: Error | null = null;
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

  /** Resolves once the server's hello frame arrives (its content is not used). */
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

  run(req: WireRequest): Promise<WireResult> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.pending) return Promise.reject(new Error('ForkServer.run: one request at a time'));
    return new Promise<WireResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.proc.kill('SIGKILL');
        this.fail(new ForkServerDied(`fork server did not answer within ${req.timeout_s}s + grace`, true));
      }, req.timeout_s * 1000 + this.graceMs);
      this.pending = { resolve, reject, timer };
      const body = Buffer.from(JSON.stringify(req), 'utf8');
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length);
      this.proc.stdin.write(Buffer.concat([head, body]));
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
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.buf.length >= 4) {
      const size = this.buf.readUInt32BE(0);
      if (this.buf.length < 4 + size) break;
      const msg = JSON.parse(this.buf.subarray(4, 4 + size).toString('utf8'));
      this.buf = this.buf.subarray(4 + size);
      if (this.readyWaiter) {
        this.readyWaiter.resolve();
        this.readyWaiter = null;
      } else if (this.pending) {
        const { resolve, timer } = this.pending;
        clearTimeout(timer);
        this.pending = null;
        resolve(msg as WireResult);
      }
    }
  }

  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    this.readyWaiter?.reject(err);
    this.readyWaiter = null;
    if (this.pending) {
      clearTimeout(this.pending.timer);
      this.pending.reject(err);
      this.pending = null;
    }
  }
}
