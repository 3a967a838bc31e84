/**
 * In-process ONNX sessions with and without intra-op spinning (activities/embeddings/providers/localModel.ts,
 * IN_PROCESS_SESSION_OPTIONS), same texts, same run, interleaved (spin, sleep, spin, sleep):
 *   spin   onnxruntime's default: idle intra-op threads spin between the graph's parallel sections
 *   sleep  allow_spinning 0, what the local providers use
 * For all-MiniLM-L6-v2 and SPLADE-tiny, prints CPU time (this process: the session's threads are ours) and wall
 * time per variant, and checks that both give bit-identical model outputs.
 * Texts: `--corpus <corpus.jsonl>` (field `code`; default runs/default/benchmark/corpus.jsonl, `npm start`'s
 * curated build), the first `--limit N` (default 300), shortest first in batches of the configuration's size.
 *
 *   node --import tsx bench/embed-local.ts [--corpus runs/<id>/benchmark/corpus.jsonl] [--limit N]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { AutoModel, AutoTokenizer, env, type Tensor } from '@huggingface/transformers';
import { loadRegistry } from '../activities/embeddings/configs.ts';
import { modelRoot, projectRoot } from '../activities/paths.ts';
import { IN_PROCESS_SESSION_OPTIONS } from '../activities/embeddings/providers/localModel.ts';
import { tokenizeTruncated } from '../activities/embeddings/providers/truncation.ts';
import { lengthOrder } from '../core/embeddings/lengthOrder.ts';

const arg = (name: string, dflt: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const corpusFile = arg('--corpus', join(projectRoot(), 'runs', 'default', 'benchmark', 'corpus.jsonl'));
const limit = Number(arg('--limit', '300'));
const codes = readFileSync(corpusFile, 'utf8').split('\n').filter(Boolean).slice(0, limit).map((l) => (JSON.parse(l) as { code: string }).code);
env.allowRemoteModels = false;
env.localModelPath = modelRoot();
const registry = loadRegistry({ root: projectRoot(), env: {} }).entries.map((e) => e.config);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function timeOne(configId: string, options: object) {
  const config = registry.find((c) => c.config_id === configId)!;
  const tokenizer = await AutoTokenizer.from_pretrained(config.local!.model_dir, { local_files_only: true });
  const model = await AutoModel.from_pretrained(config.local!.model_dir, { dtype: 'fp32', local_files_only: true, session_options: options } as Parameters<typeof AutoModel.from_pretrained>[1]);
  const max = config.max_input_tokens ?? undefined;
  const sorted = lengthOrder(codes.map((t) => tokenizer.encode(t).length)).map((i) => codes[i]);
  const outputs: Float32Array[] = [];
  const wall0 = performance.now();
  const cpu0 = cpuMs();
  for (let b = 0; b < sorted.length; b += config.batch_size) {
    const out = (await model(tokenizeTruncated(tokenizer, sorted.slice(b, b + config.batch_size), max))) as Record<string, Tensor>;
    outputs.push(new Float32Array((out.sparse_weights ?? out.last_hidden_state).data as Float32Array));
  }
  const r = { wall_s: (performance.now() - wall0) / 1000, cpu_s: (cpuMs() - cpu0) / 1000, outputs };
  await model.dispose();
  return r;
}

const spin = {};
const results: Record<string, unknown> = { texts: codes.length, load_1min_at_start: +loadavg()[0].toFixed(2) };
for (const id of ['local-all-minilm-l6-v2', 'local-splade-tiny']) {
  const runs: { name: string; wall_s: number; cpu_s: number; outputs: Float32Array[] }[] = [];
  for (const pass of [0, 1]) {
    for (const [name, options] of [['spin', spin], ['sleep', IN_PROCESS_SESSION_OPTIONS]] as const) {
      runs.push({ name, ...(await timeOne(id, options)) });
      process.stderr.write(`${id} ${name} (pass ${pass + 1}): ${runs.at(-1)!.wall_s.toFixed(1)} s wall, ${runs.at(-1)!.cpu_s.toFixed(1)} s CPU (load ${loadavg()[0].toFixed(1)})\n`);
    }
  }
  const best = (name: string, k: 'wall_s' | 'cpu_s') => Math.min(...runs.filter((r) => r.name === name).map((r) => r[k]));
  const identical = runs.every((r) => r.outputs.length === runs[0].outputs.length && r.outputs.every((o, i) => o.length === runs[0].outputs[i].length && o.every((x, j) => Object.is(x, runs[0].outputs[i][j]))));
  results[id] = {
    spin: { wall_s: +best('spin', 'wall_s').toFixed(2), cpu_s: +best('spin', 'cpu_s').toFixed(2) },
    sleep: { wall_s: +best('sleep', 'wall_s').toFixed(2), cpu_s: +best('sleep', 'cpu_s').toFixed(2) },
    cpu_sleep_over_spin: +(best('sleep', 'cpu_s') / best('spin', 'cpu_s')).toFixed(3),
    wall_sleep_over_spin: +(best('sleep', 'wall_s') / best('spin', 'wall_s')).toFixed(3),
    bit_identical_outputs: identical,
  };
}
results.load_1min_at_end = +loadavg()[0].toFixed(2);
console.log(JSON.stringify(results, null, 2));
