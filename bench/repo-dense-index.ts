/**
 * Benchmark: dense indexing of this repository's index (the data/gold commit) with the local
 * all-MiniLM-L6-v2 configuration, chunks/second, several ways over the same chunks in the same run:
 *   full       each chunk's path and whole text, shortest first (what repo index did before heads; the
 *              model truncates at 256 tokens and the tokenizer still reads the whole text)
 *   head:N     its path, names and first N characters at a line boundary (core/repo/denseText.ts)
 * All ways run `--reps` times (default 2), interleaved, each with a fresh embedding cache; the best of each is reported, with
 * the ratio against `full` (wall clock, and this process's CPU time) and the tokens actually fed to the model (the tokenizer's count capped at the
 * configuration's max_input_tokens: the work, independent of machine load). Then the default form again
 * on the filled cache (an index of a later commit costs its diff). `--limit N` takes every k-th chunk down
 * to N (default 300), so the mix of short and long chunks is the index's. `--gold` embeds the full index
 * each way and prints the dense and hybrid pass rates on data/gold (slow: every chunk once per way).
 *
 *   node --import tsx bench/repo-dense-index.ts [--limit N] [--heads 320,160,128] [--reps 2] [--gold]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { projectRoot, stateDir } from '../activities/paths.ts';
import { registryEmbedder } from '../activities/repo/registryEmbedder.ts';
import { buildIndex, embedChunks } from '../activities/repo/indexBuild.ts';
import { loadGold } from '../activities/repo/goldFiles.ts';
import { runEvaluation } from '../activities/repo/evalRun.ts';
import { DEFAULT_PIPELINE, pipelineName } from '../activities/repo/pipeline.ts';
import { loadRegistry } from '../activities/embeddings/configs.ts';
import { defaultPolicy } from '../core/repo/pathPolicy.ts';
import { summarise } from '../core/repo/aggregate.ts';
import { DEFAULT_DENSE_TEXT, denseText, denseTextLabel, type DenseTextForm } from '../core/repo/denseText.ts';
import type { Embedder } from '../activities/repo/embedder.ts';
import type { Chunk } from '../schemas/repoIndex.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const CONFIG = 'local-all-minilm-l6-v2';
const root = projectRoot();
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

function freshEmbedder(): { embedder: Embedder; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'er-dense-bench-'));
  process.env.EXECRETRIEVAL_EMBED_CACHE = join(dir, 'cache.sqlite');
  return { embedder: registryEmbedder(root, stateDir(), CONFIG), dir };
}

/** Wall-clock seconds and this process's CPU seconds (user + system, all threads): on a shared machine the CPU time is the steadier measure of work. */
async function timed<T>(f: () => Promise<T>): Promise<{ s: number; cpu: number; value: T }> {
  const t = performance.now();
  const c = process.cpuUsage();
  const value = await f();
  const d = process.cpuUsage(c);
  return { s: (performance.now() - t) / 1000, cpu: (d.user + d.system) / 1e6, value };
}

const gold = loadGold(join(root, 'data', 'gold'));
const revision = gold.cases[0].repositoryRevision;
const lexical = await buildIndex({ repoDir: root, revision, policy: defaultPolicy(), outDir: mkdtempSync(join(tmpdir(), 'er-dense-ix-')) });
const limit = Number(arg('limit') ?? 300);
const step = Math.max(1, Math.floor(lexical.chunks.length / limit));
const sample = lexical.chunks.filter((_, i) => i % step === 0).slice(0, limit);
const forms: DenseTextForm[] = [{ headChars: null }, ...(arg('heads') ?? '320,160,128').split(',').map((x) => ({ headChars: Number(x) }))];
console.log(`${sample.length} of ${lexical.chunks.length} chunks at ${revision.slice(0, 12)}; default ${denseTextLabel(DEFAULT_DENSE_TEXT)}; load ${load()}`);

// Tokens fed to the model per form: the tokenizer's count (with specials), capped where the model truncates.
const config = loadRegistry({ root }).entries.find((e) => e.config.config_id === CONFIG)!.config;
env.localModelPath = join(stateDir(), 'models');
env.allowRemoteModels = false;
const tokenizer = await AutoTokenizer.from_pretrained(config.local!.model_dir, { local_files_only: true });
const tokensFed = (chunks: readonly Chunk[], f: DenseTextForm) => chunks.reduce((a, c) => a + Math.min(config.max_input_tokens ?? Infinity, tokenizer.encode(denseText(c, f)).length), 0);

// Warm the model once (load time is not indexing throughput).
const warm = freshEmbedder();
await warm.embedder.embed(['warm up'], 'document');
rmSync(warm.dir, { recursive: true, force: true });

// Every way twice, interleaved, each time with a fresh cache; the best of each is kept (other processes
// share the 2 cores, and load moves within a run).
const best = new Map<string, number>();
const bestCpu = new Map<string, number>();
const runs = new Map<string, number[]>();
const reps = Number(arg('reps') ?? 2);
let last: ReturnType<typeof freshEmbedder> | null = null;
for (let rep = 0; rep < reps; rep++) {
  for (const f of forms) {
    if (last) rmSync(last.dir, { recursive: true, force: true });
    const x = (last = freshEmbedder());
    const t = await timed(() => embedChunks(sample, x.embedder, 256, () => {}, f));
    const k = denseTextLabel(f);
    runs.set(k, [...(runs.get(k) ?? []), t.s]);
    best.set(k, Math.min(best.get(k) ?? Infinity, t.s));
    bestCpu.set(k, Math.min(bestCpu.get(k) ?? Infinity, t.cpu));
  }
}
rmSync(last!.dir, { recursive: true, force: true });
const base = best.get('full')!;
const baseCpu = bestCpu.get('full')!;
const baseTokens = tokensFed(sample, { headChars: null });
for (const f of forms) {
  const k = denseTextLabel(f);
  const s = best.get(k)!;
  const tok = tokensFed(sample, f);
  const cpu = bestCpu.get(k)!;
  console.log(`${k.padEnd(9)} ${(sample.length / s).toFixed(2).padStart(7)} chunks/s (best ${s.toFixed(1)} s of ${runs.get(k)!.map((x) => x.toFixed(1)).join(', ')})  ${(base / s).toFixed(2)}x wall; CPU ${cpu.toFixed(1)} s ${(baseCpu / cpu).toFixed(2)}x; tokens fed ${tok} (${(baseTokens / tok).toFixed(2)}x fewer)`);
}
const c = freshEmbedder();
await embedChunks(sample, c.embedder, 256);
const cached = await timed(() => embedChunks(sample, c.embedder, 256));
console.log(`cached rerun (${denseTextLabel(DEFAULT_DENSE_TEXT)}): ${(sample.length / cached.s).toFixed(0)} chunks/s (${cached.s.toFixed(2)} s); load ${load()}`);
rmSync(c.dir, { recursive: true, force: true });

if (process.argv.includes('--gold')) {
  for (const f of forms) {
    const e = freshEmbedder();
    const t = await timed(() => embedChunks(lexical.chunks, e.embedder, 256, () => {}, f));
    const index = { ...lexical, manifest: { ...lexical.manifest, embedder: e.embedder.info }, vectors: t.value };
    const configs = [{ ...DEFAULT_PIPELINE, retriever: 'dense' as const }, { ...DEFAULT_PIPELINE, retriever: 'hybrid_rrf' as const }];
    const out = await runEvaluation({ cases: gold.cases, index, repoDir: root, mode: 'live', configs, embedder: e.embedder });
    const rates = configs.map((cfg) => {
      const name = pipelineName(cfg, CONFIG);
      const s = summarise(out.results.filter((r) => r.retriever === name));
      return `${cfg.retriever} pass ${s.pass_rate.toFixed(3)} (n=${s.n}) MRR ${s.mrr.toFixed(3)}`;
    });
    console.log(`${denseTextLabel(f).padEnd(9)} full index ${(lexical.chunks.length / t.s).toFixed(2)} chunks/s, tokens fed ${tokensFed(lexical.chunks, f)}; ${rates.join('; ')}; load ${load()}`);
    rmSync(e.dir, { recursive: true, force: true });
  }
}
