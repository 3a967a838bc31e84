/**
 * Benchmark: dense indexing of this repository's index (the data/gold commit) with the local
 * all-MiniLM-L6-v2 configuration, chunks/second, two ways over the same chunks in the same run:
 *   before  batches of 64 chunks in index order (what repo index did: a batch pads to its longest chunk)
 *   after   embedChunks: all chunks shortest first, groups of 256 (the embedder batches by batch_size)
 * and, third, `after` again on the now-filled embedding cache (an index of a later commit costs its diff).
 * Each way runs twice, interleaved, with a fresh embedding cache each time; the best of each is reported. `--limit N` takes every k-th chunk down to N (default 300), so the
 * mix of short and long chunks is the index's. `--gold` also evaluates data/gold with dense retrieval on a
 * full index built both ways (slow: every chunk twice) and prints both pass rates.
 *
 *   node --import tsx bench/repo-dense-index.ts [--limit N] [--gold]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot, stateDir } from '../activities/paths.ts';
import { registryEmbedder } from '../activities/repo/registryEmbedder.ts';
import { buildIndex, embedChunks, embedText } from '../activities/repo/indexBuild.ts';
import { loadGold } from '../activities/repo/goldFiles.ts';
import { runEvaluation } from '../activities/repo/evalRun.ts';
import { DEFAULT_PIPELINE } from '../activities/repo/pipeline.ts';
import { defaultPolicy } from '../core/repo/pathPolicy.ts';
import { summarise } from '../core/repo/aggregate.ts';
import type { Embedder } from '../activities/repo/embedder.ts';
import type { Chunk } from '../schemas/repoIndex.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const CONFIG = 'local-all-minilm-l6-v2';
const root = projectRoot();

function freshEmbedder(): { embedder: Embedder; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'er-dense-bench-'));
  process.env.EXECRETRIEVAL_EMBED_CACHE = join(dir, 'cache.sqlite');
  return { embedder: registryEmbedder(root, stateDir(), CONFIG), dir };
}

async function before(chunks: readonly Chunk[], e: Embedder): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i += 64) out.push(...(await e.embed(chunks.slice(i, i + 64).map(embedText), 'document')));
  return out;
}

async function timed<T>(f: () => Promise<T>): Promise<{ s: number; value: T }> {
  const t = performance.now();
  const value = await f();
  return { s: (performance.now() - t) / 1000, value };
}

const gold = loadGold(join(root, 'data', 'gold'));
const revision = gold.cases[0].repositoryRevision;
const lexical = await buildIndex({ repoDir: root, revision, policy: defaultPolicy(), outDir: mkdtempSync(join(tmpdir(), 'er-dense-ix-')) });
const limit = Number(arg('limit') ?? 300);
const step = Math.max(1, Math.floor(lexical.chunks.length / limit));
const sample = lexical.chunks.filter((_, i) => i % step === 0).slice(0, limit);
console.log(`${sample.length} of ${lexical.chunks.length} chunks at ${revision.slice(0, 12)}; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);

// Warm the model once (load time is not indexing throughput).
const warm = freshEmbedder();
await warm.embedder.embed(['warm up'], 'document');
rmSync(warm.dir, { recursive: true, force: true });

// Each way twice, interleaved, each time with a fresh cache; the best of each is kept (other processes share
// the 2 cores, and load moves within a run).
const runs: { before: number[]; after: number[] } = { before: [], after: [] };
let b0 = { s: Infinity, value: [] as Float32Array[] };
let a0 = { s: Infinity, value: [] as Float32Array[] };
let last: ReturnType<typeof freshEmbedder> | null = null;
for (let rep = 0; rep < 2; rep++) {
  const x = freshEmbedder();
  const tb = await timed(() => before(sample, x.embedder));
  runs.before.push(tb.s);
  if (tb.s < b0.s) b0 = tb;
  rmSync(x.dir, { recursive: true, force: true });
  if (last) rmSync(last.dir, { recursive: true, force: true });
  last = freshEmbedder();
  const l = last;
  const ta = await timed(() => embedChunks(sample, l.embedder, 256));
  runs.after.push(ta.s);
  if (ta.s < a0.s) a0 = ta;
}
const cached = await timed(() => embedChunks(sample, last!.embedder, 256));
console.log(`runs (s): before ${runs.before.map((x) => x.toFixed(1)).join(', ')}; after ${runs.after.map((x) => x.toFixed(1)).join(', ')}`);
let maxDiff = 0;
sample.forEach((_, i) => {
  for (let d = 0; d < b0.value[i].length; d++) maxDiff = Math.max(maxDiff, Math.abs(b0.value[i][d] - a0.value[i][d]));
});
console.log(`before  ${(sample.length / b0.s).toFixed(2)} chunks/s (${b0.s.toFixed(1)} s)`);
console.log(`after   ${(sample.length / a0.s).toFixed(2)} chunks/s (${a0.s.toFixed(1)} s)  ratio ${(b0.s / a0.s).toFixed(2)}x`);
console.log(`cached  ${(sample.length / cached.s).toFixed(0)} chunks/s (${cached.s.toFixed(2)} s)`);
console.log(`max |vector difference| before vs after: ${maxDiff.toExponential(2)}; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
rmSync(last!.dir, { recursive: true, force: true });

if (process.argv.includes('--gold')) {
  for (const [name, embed] of [['before', before], ['after', (c: readonly Chunk[], e: Embedder) => embedChunks(c, e, 256)]] as const) {
    const f = freshEmbedder();
    const t = await timed(() => embed(lexical.chunks, f.embedder));
    const index = { ...lexical, manifest: { ...lexical.manifest, embedder: f.embedder.info }, vectors: t.value };
    const out = await runEvaluation({ cases: gold.cases, index, repoDir: root, mode: 'live', configs: [{ ...DEFAULT_PIPELINE, retriever: 'dense' }], embedder: f.embedder });
    const s = summarise(out.results);
    console.log(`${name}: full index ${(lexical.chunks.length / t.s).toFixed(2)} chunks/s; dense pass rate on data/gold ${s.pass_rate.toFixed(3)} (n=${s.n}), MRR ${s.mrr.toFixed(3)}`);
    rmSync(f.dir, { recursive: true, force: true });
  }
}
