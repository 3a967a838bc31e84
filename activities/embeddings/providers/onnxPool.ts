import { fork, type ChildProcess } from 'node:child_process';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import type { OnnxReply, OnnxWorkerMessage } from './onnxWorker.ts';

type Result = { vectors: Float32Array[]; tokens: number };
type Pending = { id: number; texts: string[]; resolve: (r: Result) => void; reject: (e: Error) => void };
type Slot = { child: ChildProcess; task: Pending | null; stderr: string };

/** The last lines a worker wrote to stderr, for the error that reports its death. */
const tail = (s: string) => s.trim().split('\n').slice(-3).join(' | ').slice(-400);

/**
 * N worker processes, each holding one single-threaded ONNX session of the same model (onnxWorker.ts), each
 * taking whole equal-width tasks from one queue: two single-threaded sessions keep both cores busy without the
 * barriers an intra-op thread pool waits at after every operator (docs/dense-indexing.md has the figures).
 *
 * Processes, not worker threads: stopping a worker thread while onnxruntime runs in it aborts the whole process
 * (onnxruntime-node throws a Napi::Error into a thread being torn down: "terminate called after throwing"), and
 * a crash in native code takes down every thread. A process can be killed, or die, on its own.
 *
 * A worker that dies (killed, crashed, exited) fails every task in flight or queued with one error naming the
 * model and the worker, and every later call with the same error: an embedding never gets a missing or zero
 * vector, and never waits on a worker that is gone. Idle workers are unref'd, so a caller that forgets close()
 * does not keep the process alive (a worker ends when its parent does); a worker with a task is ref'd.
 */
export class OnnxWorkerPool {
  private readonly queue: Pending[] = [];
  private failure: Error | null = null;
  private closing = false;
  private nextId = 0;

  private constructor(
    private readonly label: string,
    private readonly slots: Slot[],
  ) {
    slots.forEach((slot, i) => {
      slot.child.on('message', (reply: OnnxReply) => this.settle(slot, reply));
      slot.child.on('exit', (code, signal) => this.fail(i, `${signal ? `was killed (${signal})` : `exited (code ${code})`}${slot.stderr.trim() ? `: ${tail(slot.stderr)}` : ''}`));
      slot.child.on('error', (e) => this.fail(i, `failed: ${e.message}`));
      idle(slot.child);
    });
  }

  /** Starts `size` workers and waits until every one has loaded its session; if one cannot, all are stopped and its reason is thrown. */
  static async start(opts: { size: number; config: EmbeddingConfig; modelRoot: string; sessionOptions: object }): Promise<OnnxWorkerPool> {
    const boot = new URL('./onnxWorkerBoot.mjs', import.meta.url);
    const slots: Slot[] = Array.from({ length: opts.size }, () => ({
      child: fork(boot, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv: [] }),
      task: null,
      stderr: '',
    }));
    for (const s of slots) {
      s.child.stderr!.on('data', (d: Buffer) => (s.stderr = (s.stderr + d.toString()).slice(-4000)));
      // What a worker writes never holds the parent's event loop; its exit and its answers do (idle/busy below).
      (s.child.stderr as unknown as Refable).unref();
    }
    const ready = (s: Slot, i: number) =>
      new Promise<void>((resolve, reject) => {
        const onMessage = (m: OnnxReply) => {
          if (m === 'up') return s.child.send({ load: { config: opts.config, modelRoot: opts.modelRoot, sessionOptions: opts.sessionOptions } } satisfies OnnxWorkerMessage);
          done(m === 'ready' ? null : `${typeof m === 'object' && 'loadError' in m ? m.loadError : JSON.stringify(m)}`);
        };
        const onExit = (code: number | null, signal: string | null) => done(`${signal ? `killed (${signal})` : `exited (code ${code})`}${s.stderr.trim() ? `: ${tail(s.stderr)}` : ''}`);
        const onError = (e: Error) => done(e.message);
        // Only these listeners come off afterwards; the pool adds its own.
        const done = (why: string | null) => {
          s.child.off('message', onMessage).off('exit', onExit).off('error', onError);
          if (why === null) resolve();
          else reject(new Error(`${opts.config.config_id}: ONNX worker ${i + 1} of ${opts.size} did not load the model: ${why}`));
        };
        s.child.on('message', onMessage).on('exit', onExit).on('error', onError);
      });
    const loaded = await Promise.allSettled(slots.map(ready));
    const failed = loaded.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      for (const s of slots) s.child.kill('SIGKILL');
      throw failed.reason;
    }
    return new OnnxWorkerPool(opts.config.config_id, slots);
  }

  /** Why the pool is spent (a worker died), or null while it works. */
  get failed(): Error | null {
    return this.failure;
  }

  get size(): number {
    return this.slots.length;
  }

  /** The worker processes' ids (tests kill one; a benchmark reads their CPU time). */
  get pids(): number[] {
    return this.slots.map((s) => s.child.pid!);
  }

  /** One forward pass over texts of one width, on the first free worker. */
  run(texts: string[]): Promise<Result> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new Error(`${this.label}: the ONNX worker pool is closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, texts, resolve, reject });
      this.pump();
    });
  }

  /** Stops every worker; a task still queued or in flight fails (the caller is done with the model). */
  async close(): Promise<void> {
    this.closing = true;
    const closed = new Error(`${this.label}: the ONNX worker pool was closed with the task unfinished`);
    for (const t of this.queue.splice(0)) t.reject(closed);
    await Promise.all(
      this.slots.map(async (s) => {
        s.task?.reject(closed);
        s.task = null;
        if (s.child.exitCode !== null || s.child.signalCode !== null) return;
        const gone = new Promise((r) => s.child.once('exit', r));
        busy(s.child); // an unref'd child's exit would not keep this process waiting for it
        s.child.kill('SIGKILL');
        await gone;
      }),
    );
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.task || !this.queue.length) continue;
      slot.task = this.queue.shift()!;
      busy(slot.child);
      slot.child.send({ id: slot.task.id, texts: slot.task.texts } satisfies OnnxWorkerMessage);
    }
  }

  private settle(slot: Slot, reply: OnnxReply): void {
    const task = slot.task;
    if (typeof reply !== 'object' || !('id' in reply) || !task || task.id !== reply.id) {
      return this.fail(this.slots.indexOf(slot), `answered ${JSON.stringify(reply).slice(0, 100)} with task ${task?.id ?? 'none'} in flight`);
    }
    slot.task = null;
    idle(slot.child);
    if ('error' in reply) task.reject(new Error(`${this.label}: ${reply.error}`));
    else task.resolve({ vectors: Array.from({ length: reply.dim ? reply.flat.length / reply.dim : 0 }, (_, i) => reply.flat.slice(i * reply.dim, (i + 1) * reply.dim)), tokens: reply.tokens });
    this.pump();
  }

  /** A worker is gone (or misbehaved): every unfinished task, and every later call, fails with one error; the other workers are stopped. */
  private fail(index: number, why: string): void {
    if (this.closing || this.failure) return;
    const unfinished = this.queue.length + this.slots.filter((s) => s.task).length;
    this.failure = new Error(`${this.label}: ONNX worker ${index + 1} of ${this.slots.length} ${why}; ${unfinished} embedding task(s) unfinished, no vectors returned (EXECRETRIEVAL_ONNX_WORKERS=1 embeds in-process)`);
    for (const t of this.queue.splice(0)) t.reject(this.failure);
    for (const s of this.slots) {
      s.task?.reject(this.failure);
      s.task = null;
      s.child.kill('SIGKILL');
    }
  }
}

// An idle worker holds neither the event loop (process and IPC channel unref'd) nor anything else; a busy one
// holds both, so the parent waits for its answer.
type Refable = { ref(): void; unref(): void };
function idle(c: ChildProcess): void {
  c.unref();
  (c.channel as unknown as Refable | undefined)?.unref();
}
function busy(c: ChildProcess): void {
  c.ref();
  (c.channel as unknown as Refable | undefined)?.ref();
}
