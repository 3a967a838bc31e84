/**
 * Benchmark: the role-aware reranker's weights, tuned on the train half of every shipped gold set and
 * reported on the held-out half (core/repo/split.ts decides the halves), per set, per retriever and per
 * query class, beside the same retriever without the reranker and with the current default weights.
 *
 * Sets: this project's data/gold (its pinned commit) and the requests 2.32.3 cases of
 * data/second-codebase (the scratch repository bench/second-codebase.sh makes; run that first). Each index
 * is built at its cases' commit with the default policy (and `--embedder`, for hybrids with dense).
 *
 * Retrieval runs once per configuration without the reranker; each weight vector of the grid reranks those
 * same candidates (rerank is a pure function of the query, the candidates, the case's context and the
 * weights, as in activities/repo/pipeline.ts), so the grid costs no retrieval.
 *
 * The rule, fixed before looking at the held-out half: among grid points whose reranked train pass rate is
 * not below the plain configuration's for any hybrid (pooled over both sets, with and without the context
 * filter), the highest pooled train pass rate over every reranked configuration wins; ties go to the higher
 * train MRR, then the smaller total weight, then grid order.
 *
 *   node --import tsx bench/tune-rerank.ts [--embedder local-all-minilm-l6-v2] [--retrievers bm25,hybrid_rrf,hybrid_weighted]
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import type { GoldCase } from '../schemas/gold.ts';
import type { RankedChunk } from '../schemas/repoIndex.ts';
import { projectRoot, stateDir } from '../activities/paths.ts';
import { loadGold } from '../activities/repo/goldFiles.ts';
import { buildIndex } from '../activities/repo/indexBuild.ts';
import { loadIndex } from '../activities/repo/indexStore.ts';
import { GitRepo } from '../activities/repo/git.ts';
import { runEvaluation } from '../activities/repo/evalRun.ts';
import { DEFAULT_PIPELINE, retrieverSet, type PipelineConfig, type RetrieverKind } from '../activities/repo/pipeline.ts';
import type { Embedder } from '../activities/repo/embedder.ts';
import { defaultPolicy } from '../core/repo/pathPolicy.ts';
import { evaluateCase } from '../core/repo/evaluate.ts';
import { DEFAULT_RERANK_WEIGHTS, rerank, type RerankWeights } from '../core/repo/rerank.ts';
import { grid } from '../core/repo/tune.ts';
import { splitOf } from '../core/repo/split.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const root = projectRoot();
const embedderId = arg('embedder');
const kinds = (arg('retrievers') ?? 'bm25,hybrid_rrf,hybrid_weighted').split(',') as RetrieverKind[];
const GRID: RerankWeights[] = grid({ symbol: [0, 0.15, 0.3, 0.6], path: [0, 0.2], role: [0, 0.1, 0.2, 0.4], trap: [0, 0.3] });

interface Set {
  name: string;
  repo: string;
  cases: string;
}
const SETS: Set[] = [
  { name: 'execretrieval', repo: root, cases: join(root, 'data', 'gold', 'execretrieval.jsonl') },
  { name: 'requests', repo: join(root, '.scratch', 'requests-2.32.3'), cases: join(root, 'data', 'second-codebase', 'requests-2.32.3.jsonl') },
];

/** One configuration's candidates before reranking, per case, and its name without the reranker. */
interface Ranked {
  set: string;
  testCase: GoldCase;
  retriever: RetrieverKind;
  ctx: boolean;
  before: RankedChunk[];
  plain: RankedChunk[];
}

const t0 = Date.now();
const log = (m: string) => console.error(`[tune ${((Date.now() - t0) / 1000).toFixed(0)}s load ${loadavg()[0].toFixed(1)}] ${m}`);
let embedder: Embedder | undefined;
if (embedderId) embedder = await (await import('../activities/repo/registryEmbedder.ts')).registryEmbedder(root, stateDir(), embedderId);

const ranked: Ranked[] = [];
for (const s of SETS) {
  if (!existsSync(s.repo)) throw new Error(`${s.repo}: missing (run bash bench/second-codebase.sh first)`);
  const gold = loadGold(s.cases);
  if (gold.errors.length) throw new Error(`${s.cases}: ${gold.errors.length} bad case(s)`);
  const rev = await new GitRepo(s.repo).resolve(gold.cases[0].repositoryRevision);
  const outDir = join(root, '.scratch', `tune-${s.name}-${rev.slice(0, 12)}${embedderId ? `-${embedderId}` : ''}`);
  let index;
  try {
    index = loadIndex(outDir);
  } catch {
    log(`${s.name}: indexing ${rev}`);
    index = await buildIndex({ repoDir: s.repo, revision: rev, policy: defaultPolicy(), outDir, embedder });
  }
  log(`${s.name}: ${index.chunks.length} chunks, chunker ${index.manifest.chunker_version}`);
  const retrievers = retrieverSet(index, embedder);
  for (const retriever of kinds) {
    for (const ctx of [false, true]) {
      const cfg: PipelineConfig = { ...DEFAULT_PIPELINE, retriever, contextFilter: ctx, rerank: null };
      const out = await runEvaluation({ cases: gold.cases, index, repoDir: s.repo, mode: 'live', configs: [cfg], embedder, retrievers });
      for (const e of out.evaluated) ranked.push({ set: s.name, testCase: e.testCase, retriever, ctx, before: e.record.candidates_before_rerank, plain: e.record.candidates_after_rerank });
    }
  }
}
log(`${ranked.length} rankings; ${GRID.length} grid points`);

const isHybrid = (k: RetrieverKind) => k.startsWith('hybrid');
interface Outcome {
  passed: boolean;
  rr: number;
}
const score = (r: Ranked, after: readonly RankedChunk[]): Outcome => {
  const m = evaluateCase(r.testCase, after);
  return { passed: m.passed, rr: m.reciprocal_rank };
};
const reranked = (r: Ranked, w: RerankWeights) => rerank(r.testCase.query, r.before, r.testCase.context, w).map((c, i) => ({ ...c, rank: i + 1 }));
const plainOutcome = new Map(ranked.map((r) => [r, score(r, r.plain)]));
const train = ranked.filter((r) => splitOf(r.testCase) === 'train');
const test = ranked.filter((r) => splitOf(r.testCase) === 'test');

/** Pass rate of a group of rankings under an outcome function. */
const rate = (rs: readonly Ranked[], f: (r: Ranked) => Outcome) => (rs.length ? rs.filter((r) => f(r).passed).length / rs.length : NaN);
const mrr = (rs: readonly Ranked[], f: (r: Ranked) => Outcome) => (rs.length ? rs.reduce((s, r) => s + f(r).rr, 0) / rs.length : NaN);
const groups = (rs: readonly Ranked[]) => {
  const m = new Map<string, Ranked[]>();
  for (const r of rs) {
    const k = `${r.retriever}${r.ctx ? '+ctx' : ''}`;
    m.set(k, [...(m.get(k) ?? []), r]);
  }
  return m;
};

const tried = GRID.map((w, i) => {
  const memo = new Map<Ranked, Outcome>();
  const f = (r: Ranked) => {
    let o = memo.get(r);
    if (!o) memo.set(r, (o = score(r, reranked(r, w))));
    return o;
  };
  const hybridsKept = [...groups(train.filter((r) => isHybrid(r.retriever)))].every(([, rs]) => rate(rs, f) >= rate(rs, (r) => plainOutcome.get(r)!));
  return { w, i, f, hybridsKept, trainPass: rate(train, f), trainMrr: mrr(train, f), total: w.symbol + w.path + w.role + w.trap };
});
const eligible = tried.filter((t) => t.hybridsKept);
const best = [...eligible].sort((a, b) => b.trainPass - a.trainPass || b.trainMrr - a.trainMrr || a.total - b.total || a.i - b.i)[0];
if (!best) throw new Error('no grid point keeps every hybrid at or above its plain configuration on the train half');
const dflt = tried.find((t) => JSON.stringify(t.w) === JSON.stringify({ symbol: DEFAULT_RERANK_WEIGHTS.symbol, path: DEFAULT_RERANK_WEIGHTS.path, role: DEFAULT_RERANK_WEIGHTS.role, trap: DEFAULT_RERANK_WEIGHTS.trap }));
const defaultF = dflt?.f ?? ((r: Ranked) => score(r, reranked(r, DEFAULT_RERANK_WEIGHTS)));
log(`${eligible.length} of ${GRID.length} grid points keep every hybrid on train`);
console.log(`tuned weights: ${JSON.stringify(best.w)} (train pass ${(best.trainPass * 100).toFixed(1)}%, MRR ${best.trainMrr.toFixed(3)}); default ${JSON.stringify(DEFAULT_RERANK_WEIGHTS)}`);
console.log(`train: ${train.length / (kinds.length * 2)} cases, held-out: ${test.length / (kinds.length * 2)} cases (each under ${kinds.length * 2} configurations)\n`);

const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)}`);
const row = (label: string, rs: readonly Ranked[]) => {
  const p = rate(rs, (r) => plainOutcome.get(r)!);
  const d = rate(rs, defaultF);
  const t = rate(rs, best.f);
  const flag = t < p ? ' **lower**' : '';
  return `| ${label} | ${rs.length} | ${pct(p)} | ${pct(d)} | ${pct(t)}${flag} |`;
};
for (const [half, rs] of [['held-out', test], ['train', train]] as const) {
  console.log(`### ${half} half: pass rate (%) without the reranker, with the default weights, with the tuned weights\n`);
  console.log('| set / configuration | n | no rerank | default | tuned |');
  console.log('|---|---|---|---|---|');
  for (const s of SETS) for (const [k, g] of groups(rs.filter((r) => r.set === s.name))) console.log(row(`${s.name} ${k}`, g));
  console.log('');
  if (half === 'held-out') {
    console.log(`### held-out half by query class (pooled over both sets)\n`);
    console.log('| configuration / query class | n | no rerank | default | tuned |');
    console.log('|---|---|---|---|---|');
    for (const [k, g] of groups(rs)) {
      const classes = [...new Set(g.map((r) => r.testCase.queryClass))].sort();
      for (const q of classes) console.log(row(`${k} ${q}`, g.filter((r) => r.testCase.queryClass === q)));
    }
    console.log('');
  }
}
