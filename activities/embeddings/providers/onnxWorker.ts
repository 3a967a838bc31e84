import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { loadOnnxEncoder } from './onnxEncoder.ts';

/** What onnxPool.ts sends each worker process: first its model, then tasks. */
export type OnnxWorkerMessage = { load: { config: EmbeddingConfig; modelRoot: string; sessionOptions: object } } | { id: number; texts: string[] };
export type OnnxReply = 'up' | 'ready' | { loadError: string } | { id: number; flat: Float32Array; dim: number; tokens: number } | { id: number; error: string };

// A forked process (onnxWorkerBoot.mjs) holding one ONNX session: the first message names the model, each later
// one is an equal-width task, answered with its vectors in one buffer (structured clone over the IPC channel).
// Tasks arrive one at a time (the pool sends a worker its next task only after the reply). The parent going away
// ends the process: a worker never outlives the run that started it.
const send = (m: OnnxReply) => process.send!(m);
let encoder: Awaited<ReturnType<typeof loadOnnxEncoder>> | null = null;
process.on('disconnect', () => process.exit(0));
process.on('message', async (m: OnnxWorkerMessage) => {
  if ('load' in m) {
    try {
      encoder = await loadOnnxEncoder(m.load.config, m.load.modelRoot, m.load.sessionOptions);
      send('ready');
    } catch (e) {
      send({ loadError: e instanceof Error ? e.message : String(e) });
    }
    return;
  }
  try {
    const out = await encoder!.encode(m.texts);
    const dim = out.vectors[0]?.length ?? 0;
    const flat = new Float32Array(out.vectors.length * dim);
    out.vectors.forEach((v, i) => flat.set(v, i * dim));
    send({ id: m.id, flat, dim, tokens: out.tokens });
  } catch (e) {
    send({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
send('up');
