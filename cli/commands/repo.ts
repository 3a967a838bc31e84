import { EXIT_CODES } from '../../activities/faults.ts';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { givenRun } from '../options.ts';
import { z } from 'zod';
import { GoldCase, Revision } from '../../schemas/gold.ts';
import { CaseResult, IndexManifest, type RetrievalRecord } from '../../schemas/repoIndex.ts';
import { defaultPolicy, DEFAULT_EXCLUDES } from '../../core/repo/pathPolicy.ts';
import { DEFAULT_RERANK_WEIGHTS, type RerankWeights } from '../../core/repo/rerank.ts';
import { DEFAULT_GATE, evaluateGate, formatGate, parseSliceMinimum } from '../../core/repo/gate.ts';
import { formatGoldError, type GoldError } from '../../core/repo/goldParse.ts';
import { grid, tuneOnTrain } from '../../core/repo/tune.ts';
import { approxTokens, DEFAULT_CHUNK_LIMITS } from '../../core/repo/chunkBounds.ts';
import { pct } from '../../core/repo/aggregate.ts';
import { projectRoot, resolveRunDir, stateDir } from '../../activities/paths.ts';
import { buildIndex } from '../../activities/repo/indexBuild.ts';
import { verifyIndexText } from '../../activities/repo/indexVerify.ts';
import { loadIndex, readJsonlStrict } from '../../activities/repo/indexStore.ts';
import { loadGold } from '../../activities/repo/goldFiles.ts';
import { GitRepo } from '../../activities/repo/git.ts';
import { runEvaluation, type EvalRunOutput } from '../../activities/repo/evalRun.ts';
import { caseFile, repoRunDir, retrieverFolder, sha256, writeRunOutput } from '../../activities/repo/runOutput.ts';
import { loadReplaySource } from '../../activities/repo/replaySource.ts';
import { DEFAULT_PIPELINE, pipelineName, RETRIEVER_KINDS, retrieverSet, type PipelineConfig, type RetrieverKind } from '../../activities/repo/pipeline.ts';
import type { Embedder } from '../../activities/repo/embedder.ts';
import { DEFAULT_DENSE_TEXT } from '../../core/repo/denseText.ts';
import { sameRevision } from '../../core/repo/evidence.ts';
import { RUN_FORMATS, type RunFormat } from '../../activities/importers/runFile.ts';
import { endpointRetriever, importedRetriever, type CaseRetriever } from '../../activities/repo/outside.ts';
import { EndpointCache } from '../../activities/endpoint/cache.ts';
import { loadEndpoints } from '../../activities/endpoint/configs.ts';
import { RetrievalEndpoint } from '../../schemas/retrievalEndpoint.ts';
import { retrievalCachePath } from './retrieve.ts';

/**
 * `execretrieval repo index|eval|diagnose|gate`: repository retrieval evaluation (the guide's workflow).
 * index → an index of one pinned commit; eval → gold cases against it (live or recorded) into
 * runs/<run-id>/repo/; diagnose → failed cases at their first broken boundary; gate → CI thresholds.
 */
/** Loaded on demand: the embedding providers pull in heavy SDKs and ONNX runtime that lexical runs never need. */
async function registryEmbedder(...args: Parameters<typeof import('../../activities/repo/registryEmbedder.ts').registryEmbedder>) {
  return (await import('../../activities/repo/registryEmbedder.ts')).registryEmbedder(...args);
}
const collect = (v: string, prev: string[] = []) => [...prev, v];
const log = (m: string) => console.error(`[repo] ${m}`);

/** Exit codes: 1 the gate failed (a verdict), 2 a usage or input error (no verdict could be reached). */
const EXIT_GATE_FAILED = EXIT_CODES.failed;
const EXIT_USAGE = EXIT_CODES.usage;

/**
 * Every repo command reports an error as one line naming what is wrong (file, record, option) and exits 2,
 * so CI can tell "the gate said no" (1) from "the gate could not run" (2). EXECRETRIEVAL_DEBUG=1 keeps the
 * stack trace for a developer.
 */
function oneLine<A extends unknown[]>(fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (e) {
      if (process.env.EXECRETRIEVAL_DEBUG) throw e;
      console.error(`error: ${(e as Error).message.replace(/\s*\n\s*/g, '; ')}`);
      process.exitCode = EXIT_USAGE;
    }
  };
}

/** `--repo` when not given: the directory the index was built from, as its manifest records it. */
function repoDirOf(manifest: IndexManifest, given: string | undefined): string {
  if (given) return resolve(given);
  for (const d of [manifest.repository_dir, manifest.repository]) if (d && existsSync(d) && statSync(d).isDirectory()) return d;
  throw new Error(`--repo: the index records repository ${JSON.stringify(manifest.repository_dir ?? manifest.repository)}, which is not a directory here; pass --repo <dir>`);
}

/** The share of code lines indexed as plain text, e.g. `0.0% (0 of 1200 code lines)` or `12.5% (150 of 1200: kotlin)`. */
function textShare(m: IndexManifest): string {
  const t = m.code_as_text;
  if (!t) return 'not recorded (index built before languages were counted)';
  return `${pct(t.code_lines ? t.lines / t.code_lines : 0)} (${t.lines} of ${t.code_lines} code lines${t.languages.length ? `: ${t.languages.join(', ')}` : ''})`;
}

/** What the gate needs from summary.json, checked: a run written by an older version lacks gold_errors. */
const RunSummary = z.object({
  index: z.object({ revision: z.string(), index_build_id: z.string(), completed: z.boolean(), code_as_text: IndexManifest.shape.code_as_text }),
  /** Absent in runs written before the index was verified: the gate then fails its verification check. */
  index_refused_chunks: z.array(z.object({ chunk_id: z.string(), reason: z.string() })).optional(),
  refused: z.array(z.object({ case_id: z.string(), reason: z.string() })),
  gold_errors: z.array(z.object({ file: z.string(), line: z.number(), case_id: z.string().optional(), field: z.string(), message: z.string(), kind: z.literal('stale_target').optional() })),
  rejected_records: z.array(z.object({ case_id: z.string(), retriever: z.string(), reason: z.string() })),
  results_sha256: z.string(),
});

function readSummary(dir: string): z.infer<typeof RunSummary> {
  const path = join(dir, 'summary.json');
  if (!existsSync(path)) throw new Error(`${path}: no run summary (run \`execretrieval repo eval\` first)`);
  const parsed = RunSummary.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`${path}: ${i.path.join('.') || '(summary)'}: ${i.message} (written by an older execretrieval? re-run repo eval)`);
  }
  return parsed.data;
}

const VARIANTS: Record<string, Pick<PipelineConfig, 'contextFilter' | 'rerank' | 'neighbours'>> = {
  plain: { contextFilter: false, rerank: null, neighbours: false },
  ctx: { contextFilter: true, rerank: null, neighbours: false },
  rerank: { contextFilter: false, rerank: DEFAULT_RERANK_WEIGHTS, neighbours: false },
  'ctx+rerank': { contextFilter: true, rerank: DEFAULT_RERANK_WEIGHTS, neighbours: false },
  'ctx+rerank+nbr': { contextFilter: true, rerank: DEFAULT_RERANK_WEIGHTS, neighbours: true },
};

/** Reranker weights tried by --tune (train split), then reported on the held-out split. */
const TUNE_GRID: RerankWeights[] = grid({ symbol: [0, 0.3, 0.6], path: [0, 0.2], role: [0, 0.4, 0.8], trap: [0.3] });

function parseRerankWeights(spec: string): RerankWeights {
  const w = { ...DEFAULT_RERANK_WEIGHTS };
  for (const part of spec.split(',')) {
    const [k, v] = part.split('=');
    if (!(k in w) || !Number.isFinite(Number(v))) throw new Error(`--rerank-weights: ${JSON.stringify(part)} is not one of ${Object.keys(w).join(', ')}=<number>`);
    w[k as keyof RerankWeights] = Number(v);
  }
  return w;
}

/** An imported run's configuration name: a plain id that cannot pass for a built-in retriever or a variant suffix. */
const OUTSIDE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `endpoint:<id>` from the registry files, or `endpoint:<URL>` (named endpoint:<host>-<port>). */
function endpointOf(ref: string, configFiles: readonly string[]): RetrievalEndpoint {
  if (/^https?:\/\//.test(ref)) {
    let u: URL;
    try {
      u = new URL(ref);
    } catch {
      throw new Error(`--retrievers endpoint:${ref}: not a URL`);
    }
    const id = `${u.hostname}-${u.port || (u.protocol === 'https:' ? '443' : '80')}`.toLowerCase().replace(/[^a-z0-9._-]/g, '_');
    return RetrievalEndpoint.parse({ endpoint_id: id, url: ref });
  }
  const all = loadEndpoints(projectRoot(), configFiles);
  const e = all.get(ref);
  if (!e) throw new Error(`--retrievers endpoint:${ref}: unknown endpoint (known: ${[...all.keys()].join(', ') || 'none: add one to .execretrieval/retrieval-endpoints.json, pass --endpoint-config, or give a URL'})`);
  return e;
}

function readResults(dir: string): CaseResult[] {
  const path = join(dir, 'results.jsonl');
  if (!existsSync(path)) throw new Error(`${path}: no results (run \`execretrieval repo eval\` first)`);
  return readJsonlStrict(path, CaseResult);
}

function printSummary(out: EvalRunOutput): void {
  const rows = out.aggregates.filter((a) => a.dimension === 'all');
  // A replayed record refused by verification is a case not passed: it stays in the pass rate's denominator
  // (n counts it), so tampering with records can only lower the printed rate, never raise it.
  const rejected = (name: string) => out.rejectedRecords.filter((r) => r.retriever === name).length;
  const w = Math.max(9, ...rows.map((r) => r.retriever.length));
  console.log(`${'retriever'.padEnd(w)}  n   pass   req.ev  hit    MRR    forbidden  ctx.lines  ctx.tokens${out.rejectedRecords.length ? '  rejected' : ''}`);
  for (const r of rows) {
    const p = (x: number) => pct(x).padStart(6);
    const n = r.n + rejected(r.retriever);
    const passRate = n ? (r.pass_rate * r.n) / n : 0;
    console.log(`${r.retriever.padEnd(w)}  ${String(n).padEnd(3)} ${p(passRate)} ${p(r.required_evidence_rate)} ${p(r.hit_rate)} ${r.mrr.toFixed(3).padStart(6)} ${p(r.forbidden_rate)}    ${r.context_lines_mean.toFixed(0).padStart(7)}  ${r.context_tokens_mean.toFixed(0).padStart(10)}${out.rejectedRecords.length ? `  ${String(rejected(r.retriever)).padStart(8)}` : ''}`);
  }
  for (const name of new Set(out.rejectedRecords.map((r) => r.retriever))) {
    if (!rows.some((r) => r.retriever === name)) console.log(`${name.padEnd(w)}  ${String(rejected(name)).padEnd(3)} ${pct(0).padStart(6)}  (every record rejected)`);
  }
  // Cases with and without reliable context, side by side (the guide asks for both; a filter helps only one).
  for (const r of rows) {
    const ctx = out.aggregates.filter((a) => a.retriever === r.retriever && a.dimension === 'context');
    if (ctx.length) console.log(`  ${r.retriever}: ${ctx.map((a) => `${a.slice} context ${pct(a.pass_rate)} pass (n=${a.n})`).join(', ')}`);
  }
  for (const r of out.refused) console.log(`refused ${r.case_id}: ${r.reason}`);
}

export function registerRepo(program: Command): void {
  const repo = program.command('repo').description('Repository retrieval evaluation: pinned gold cases, role-aware index, diagnosis, CI gate');
  repo.addHelpText('after', '\nExamples:\n  $ execretrieval repo index --rev 411ac2fb2a23e71081d5f515ac554a6659fe7d4c --out .execretrieval/repo-index/own\n  $ execretrieval repo eval --index .execretrieval/repo-index/own --cases data/gold --run own');
  // Commander's own usage errors (a missing required option, an unknown option) exit 2 as well; its
  // message is already printed. Subcommands inherit this from `repo` when they are created below.
  repo.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE));

  repo
    .command('index')
    .addHelpText('after', '\nExample:\n  $ execretrieval repo index --rev 411ac2fb2a23e71081d5f515ac554a6659fe7d4c --out .execretrieval/repo-index/own   # this repository at a pinned commit')
    .description('index a repository at a pinned commit (read from git objects, never the working tree)')
    .option('--repo <dir>', 'git repository', '.')
    .option('--rev <revision>', 'commit to index', 'HEAD')
    .option('--out <dir>', 'index directory (default .execretrieval/repo-index/<commit>)')
    .option('--include <glob>', 'searchable paths (repeatable; default **)', collect)
    .option('--exclude <glob>', 'paths left out, on top of the defaults (repeatable)', collect)
    .option('--no-default-excludes', `drop the default excludes (${DEFAULT_EXCLUDES.length} globs: vendored, generated, build output) and build-output detection (minified/bundled content, paths the revision's .gitignore ignores)`)
    .option('--embedder <config_id>', 'embedding configuration for dense retrieval (from the registry)')
    .option('--max-file-bytes <n>', 'files larger than this are left out (listed by repo eval)', String(512 * 1024))
    .option('--max-chunk-lines <n>', 'no chunk longer than this many lines (over-long definitions are cut at structural boundaries)', String(DEFAULT_CHUNK_LIMITS.maxLines))
    .option('--max-chunk-tokens <n>', 'no chunk over this many tokens', String(DEFAULT_CHUNK_LIMITS.maxTokens))
    .option('--dense-head-chars <n|full>', 'with --embedder: characters of each chunk embedded after its path and names (full: the whole chunk)', String(DEFAULT_DENSE_TEXT.headChars ?? 'full'))
    .option('--allow-text-chunks', 'index a revision whose code is mostly in a language without a grammar, as plain text (no symbols, no roles); refused otherwise')
    .action(oneLine(async (o: { repo: string; rev: string; out?: string; include?: string[]; exclude?: string[]; defaultExcludes: boolean; embedder?: string; maxFileBytes: string; maxChunkLines: string; maxChunkTokens: string; denseHeadChars: string; allowTextChunks?: boolean }) => {
      const positive = (flag: string, v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: ${JSON.stringify(v)} is not a whole number >= 1`);
        return n;
      };
      const limits = { maxLines: positive('--max-chunk-lines', o.maxChunkLines), maxTokens: positive('--max-chunk-tokens', o.maxChunkTokens) };
      const denseText = { headChars: o.denseHeadChars === 'full' ? null : positive('--dense-head-chars', o.denseHeadChars) };
      const repoDir = resolve(o.repo);
      const rev = await new GitRepo(repoDir).resolve(o.rev);
      const policy = defaultPolicy({
        include: o.include?.length ? o.include : ['**'],
        exclude: [...(o.defaultExcludes ? DEFAULT_EXCLUDES : []), ...(o.exclude ?? [])],
        maxFileBytes: positive('--max-file-bytes', o.maxFileBytes),
        detectBuildOutput: o.defaultExcludes,
      });
      const embedder = o.embedder ? await registryEmbedder(projectRoot(), stateDir(), o.embedder) : undefined;
      const outDir = resolve(o.out ?? join(stateDir(), 'repo-index', `${rev.slice(0, 12)}${o.embedder ? `-${o.embedder}` : ''}`));
      const index = await buildIndex({ repoDir, revision: rev, policy, outDir, embedder, limits, denseText, log, allowTextChunks: o.allowTextChunks === true });
      const cov = index.manifest.coverage!;
      console.log(`${outDir}\n  revision ${index.manifest.revision}\n  build ${index.manifest.index_build_id}\n  ${index.manifest.files} files, ${index.manifest.chunk_count} chunks, embedder ${index.manifest.embedder?.config_id ?? 'none'}`);
      const longest = index.chunks.reduce((m, c) => Math.max(m, c.end_line - c.start_line + 1), 0);
      const heaviest = index.chunks.reduce((m, c) => Math.max(m, approxTokens(c.text)), 0);
      console.log(`  largest chunk: ${longest} lines, ${heaviest} tokens (limits ${limits.maxLines} lines, ${limits.maxTokens} tokens)`);
      console.log(`  coverage: ${cov.uncovered_lines} of ${cov.nonblank_lines} non-blank lines in no chunk${cov.uncovered_lines ? ` (${cov.files_with_holes} file(s); inventory.jsonl uncovered_lines)` : ''}`);
      console.log(`  languages: ${(index.manifest.languages ?? []).map((l) => `${l.language} ${l.lines} lines (${l.chunking})`).join(', ') || 'none'}`);
      console.log(`  code indexed as plain text: ${textShare(index.manifest)}`);
    }));

  repo
    .command('eval')
    .addHelpText('after', '\nExample:\n  $ execretrieval repo eval --index .execretrieval/repo-index/own --cases data/gold --run own   # the shipped gold cases: runs/own/repo/')
    .description('evaluate gold cases against an index; writes runs/<run-id>/repo/')
    .requiredOption('--index <dir>', 'index directory (from `repo index`)')
    .option('--cases <path>', 'gold cases: a .jsonl file or a directory of them', 'data/gold')
    .option('--repo <dir>', 'the git repository the index was built from (default: the directory its manifest records)')
    .option('--retrievers <list>', `comma-separated, from ${RETRIEVER_KINDS.join(', ')}, endpoint:<id|URL> (a retrieval endpoint, docs/own-retriever.md), none (only --rankings) (default: all available built-ins)`)
    .option('--rankings <name=file>', 'add a retriever from an outside run file: NAME=FILE, rows of (case id, chunk id or file[:lines], score[, rank]) in TREC, CSV, TSV, JSONL, Parquet or Arrow; checked against the index (repeatable)', collect)
    .option('--rankings-format <format>', `format of the --rankings files (default: from the extension, else trec): ${RUN_FORMATS.join(' | ')}`)
    .option('--endpoint-index', 'send the index\'s chunks to <url>/index before the first search (a URL endpoint; registry entries say "index": true)')
    .option('--endpoint-config <file>', 'retrieval endpoint registry file ({"endpoints": [...]}) for endpoint:<id> (repeatable)', collect)
    .option('--variants <list>', `comma-separated, from ${Object.keys(VARIANTS).join(', ')}`, 'plain,ctx+rerank')
    .option('--fusion-weights <list>', 'hybrid_weighted weights for bm25,symbol,dense', '0.5,0.3,0.2')
    .option('--candidate-depth <n>', 'candidates kept before reranking', '50')
    .option('--mode <mode>', 'live | recorded', 'live')
    .option('--recorded <run>', 'recorded mode: the run to replay (its directory, run id, or records.jsonl); its records are checked against that run and the index')
    .option('--embedder <config_id>', 'query embedder (default: the index manifest\'s)')
    .option('--rerank-weights <list>', 'reranker weights, e.g. symbol=0.3,path=0.2,role=0.4,trap=0.3 (default those)')
    .option('--tune', 'tune reranker weights on the train split, report the held-out split')
    .option('--run <id>', 'run id (default repo-<UTC timestamp>)')
    .addOption(new Option('--run-id <id>', 'deprecated: use --run').hideHelp())
    .addOption(new Option('--id <id>', 'deprecated: use --run').hideHelp())
    .option('--out <dir>', 'output directory (default runs/<run-id>/repo)')
    .action(oneLine(async (o: { index: string; cases: string; repo?: string; retrievers?: string; rankings?: string[]; rankingsFormat?: string; endpointConfig?: string[]; endpointIndex?: boolean; variants: string; fusionWeights: string; candidateDepth: string; mode: string; recorded?: string; embedder?: string; rerankWeights?: string; tune?: boolean; run?: string; runId?: string; id?: string; out?: string }) => {
      if (o.mode !== 'live' && o.mode !== 'recorded') throw new Error(`--mode: live or recorded (got ${JSON.stringify(o.mode)})`);
      if (o.mode === 'recorded' && !o.recorded) throw new Error('--mode recorded needs --recorded <run> (the run whose records.jsonl to replay)');
      const loaded = loadIndex(resolve(o.index));
      const repoDir = repoDirOf(loaded.manifest, o.repo);
      await new GitRepo(repoDir).resolve(loaded.manifest.revision); // the index's commit must be readable there
      // Chunk text is checked against the revision's blobs before anything ranks: an edited chunk is refused.
      const { index, refused: refusedChunks } = await verifyIndexText(loaded, repoDir);
      for (const r of refusedChunks) console.error(`refused chunk ${r.chunk_id}: ${r.reason}`);
      if (!existsSync(resolve(o.cases))) throw new Error(`--cases ${o.cases}: no such file or directory`);
      const gold = loadGold(resolve(o.cases));
      for (const e of gold.errors) console.error(`bad gold case: ${formatGoldError(e)}`);
      if (gold.cases.length === 0) throw new Error(`${o.cases}: no valid gold cases`);
      const listed = o.retrievers?.split(',').map((k) => k.trim());
      const endpointRefs = (listed ?? []).filter((k) => k.startsWith('endpoint:')).map((k) => k.slice('endpoint:'.length));
      const requested = listed?.filter((k) => !k.startsWith('endpoint:') && k !== 'none') as RetrieverKind[] | undefined;
      for (const k of requested ?? []) if (!RETRIEVER_KINDS.includes(k)) throw new Error(`--retrievers: unknown ${JSON.stringify(k)} (known: ${RETRIEVER_KINDS.join(', ')}, endpoint:<id|URL>, none)`);
      if (o.mode === 'recorded' && (o.rankings?.length || endpointRefs.length)) throw new Error('--rankings and endpoint retrievers rank now: use them with --mode live (a recorded run replays its own records)');
      if (o.rankingsFormat && !(RUN_FORMATS as readonly string[]).includes(o.rankingsFormat)) throw new Error(`--rankings-format ${JSON.stringify(o.rankingsFormat)}: expected one of ${RUN_FORMATS.join(', ')}`);
      const runId = givenRun(o) ?? `repo-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}`;
      // Outside retrievers are read and checked before any case runs: a bad file stops here, nothing written.
      const outside = new Map<string, CaseRetriever>();
      const outsideInfo: Record<string, unknown> = {};
      const builtinNames = new Set<string>(RETRIEVER_KINDS);
      for (const spec of o.rankings ?? []) {
        const eq = spec.indexOf('=');
        const name = eq > 0 ? spec.slice(0, eq) : '';
        if (!OUTSIDE_NAME.test(name) || builtinNames.has(name)) throw new Error(`--rankings ${JSON.stringify(spec)}: expected NAME=FILE, NAME of letters, digits, '.', '_', '-' and not a built-in retriever's`);
        if (outside.has(name)) throw new Error(`--rankings: ${name} given twice`);
        const imported = importedRetriever(name, spec.slice(eq + 1), gold.cases, index, o.rankingsFormat as RunFormat | undefined);
        outside.set(name, imported.retriever);
        outsideInfo[name] = { kind: 'imported', file: imported.file, sha256: imported.sha256, rows: imported.rows, merged_rows: imported.merged };
      }
      const endpointCache = endpointRefs.length ? new EndpointCache(retrievalCachePath(process.env)) : null;
      for (const ref of endpointRefs) {
        const entry = endpointOf(ref, o.endpointConfig ?? []);
        const endpoint = o.endpointIndex ? { ...entry, index: true } : entry;
        const r = endpointRetriever({ endpoint, index, cache: endpointCache!, env: process.env, runDir: o.out ? resolve(o.out) : resolveRunDir(runId), log }); // its ledger: the run folder's, or --out's
        outside.set(r.name, r);
        // Every case asked now (a window of e.concurrency searches): a bad answer stops here, before anything is written.
        await r.prepare?.(gold.cases.filter((c) => sameRevision(c.repositoryRevision, index.manifest.revision)));
        outsideInfo[r.name] = { kind: 'endpoint', endpoint_id: endpoint.endpoint_id, url: endpoint.url, url_env: endpoint.url_env, k: endpoint.k, index: endpoint.index };
      }
      if (requested?.includes('dense') && !index.vectors) throw new Error(`--retrievers dense: index ${o.index} has no vectors (build it with repo index --embedder <config_id>)`);
      if (o.embedder && !index.vectors) throw new Error(`--embedder ${o.embedder}: index ${o.index} has no vectors to compare queries with`);
      // A configuration with a dense component runs with it or not at all: a model that fails to load is an
      // error, never a hybrid quietly fused from the lexical parts under the same name.
      const wantsDense = !requested || requested.some((k) => k !== 'bm25' && k !== 'symbol');
      const embedId = index.vectors && wantsDense ? (o.embedder ?? index.manifest.embedder?.config_id) : undefined;
      let embedder: Embedder | undefined;
      if (embedId) {
        try {
          embedder = await registryEmbedder(projectRoot(), stateDir(), embedId);
          await embedder.embed(['probe'], 'query'); // providers load lazily: fail here, before any case runs
        } catch (e) {
          throw new Error(`dense retrieval (${embedId}) unavailable: ${(e as Error).message.split('\n')[0]}; to evaluate without it, pass --retrievers bm25,symbol`);
        }
      }
      const denseId = embedder ? embedder.info.config_id : null;
      const kinds = requested ?? RETRIEVER_KINDS.filter((k) => k !== 'dense' || embedder);
      const variants = o.variants.split(',').map((v) => {
        if (!VARIANTS[v]) throw new Error(`--variants: unknown ${JSON.stringify(v)} (known: ${Object.keys(VARIANTS).join(', ')})`);
        return VARIANTS[v];
      });
      const fusionWeights = o.fusionWeights.split(',').map(Number);
      const base = { ...DEFAULT_PIPELINE, candidateDepth: Number(o.candidateDepth), fusionWeights };
      const weights = o.rerankWeights ? parseRerankWeights(o.rerankWeights) : DEFAULT_RERANK_WEIGHTS;
      let configs: PipelineConfig[] = [
        ...kinds.map((retriever) => ({ retriever })),
        ...[...outside.keys()].map((source) => ({ retriever: 'bm25' as const, source })), // `retriever` is unused with a source
      ].flatMap((r) => variants.map((v) => ({ ...base, ...r, ...v, rerank: v.rerank ? weights : null })));
      if (configs.length === 0) throw new Error('--retrievers none: nothing to evaluate (add --rankings NAME=FILE or an endpoint:<id|URL>)');
      const extra: Record<string, unknown> = { mode: o.mode, cases_file: o.cases, gold_errors: gold.errors, index_refused_chunks: refusedChunks, ...(outside.size ? { outside: outsideInfo } : {}) };

      if (o.tune && o.mode === 'live') {
        // Every grid point ranks over the same index: build the BM25 index and symbol map once, not per point.
        const retrievers = retrieverSet(index, embedder, outside);
        const tuned = await Promise.all(
          configs.map(async (cfg) => {
            if (!cfg.rerank) return { cfg };
            const t = await tuneOnTrain(TUNE_GRID, async (w) => (await runEvaluation({ cases: gold.cases, index, repoDir, mode: 'live', configs: [{ ...cfg, rerank: w }], embedder, retrievers })).results);
            log(`${pipelineName(cfg, denseId)}: tuned ${JSON.stringify(t.best)} — train pass ${t.train.pass_rate.toFixed(3)} (n=${t.train.n}), held-out pass ${t.test.pass_rate.toFixed(3)} (n=${t.test.n})`);
            return { cfg: { ...cfg, rerank: t.best }, tuning: [pipelineName(cfg, denseId), { weights: t.best, train: t.train, held_out: t.test, grid_size: TUNE_GRID.length }] as const };
          }),
        );
        configs = tuned.map((x) => x.cfg);
        // Keyed in config order, not in the order the grids happen to finish, so summary.json is reproducible.
        extra.tuning = Object.fromEntries(tuned.flatMap((x) => (x.tuning ? [x.tuning] : [])));
      }

      const replay = o.mode === 'recorded' ? loadReplaySource(o.recorded ?? '') : undefined;
      if (replay) extra.replay_of = { run_id: replay.runId, records_sha256: replay.recordsSha256 };
      const out = await runEvaluation({
        cases: gold.cases,
        index,
        repoDir,
        mode: o.mode === 'recorded' ? 'recorded' : 'live',
        runId,
        configs,
        recorded: replay?.records,
        replays: replay?.runId,
        embedder,
        outside,
      }).finally(() => endpointCache?.close());
      const dir = resolve(o.out ?? join(resolveRunDir(runId), 'repo'));
      // Files the size limit kept out are unsearchable source a reader of the results must know about.
      const oversize = index.inventory.filter((e) => e.reason === 'too-large').map((e) => ({ path: e.path, bytes: e.bytes }));
      for (const f of oversize) console.error(`not indexed (over maxFileBytes ${index.manifest.policy.maxFileBytes}): ${f.path} (${f.bytes} bytes)`);
      // Stale targets are gold errors too (listed, and failing the gate unless --allow-stale-gold).
      const stale: GoldError[] = out.staleTargets.map((t) => ({ ...(gold.origin.get(t.case_id) ?? { file: o.cases, line: 0 }), case_id: t.case_id, field: t.field, message: t.message, kind: 'stale_target' }));
      for (const e of stale) console.error(`stale gold case: ${formatGoldError(e)}`);
      extra.gold_errors = [...gold.errors, ...stale];
      writeRunOutput(dir, out, index.manifest, { ...extra, oversize_files: oversize, run_id: runId, configs: configs.map((c) => ({ name: pipelineName(c, denseId), ...c, ...(c.source ? { retriever: undefined } : {}) })) }, index.chunks);
      printSummary(out);
      console.log(`wrote ${dir} (report.html, results.parquet, cases/, evidence/)`);
      for (const r of out.rejectedRecords) console.error(`rejected record ${r.case_id} [${r.retriever}] of run ${replay?.runId}: ${r.reason}`);
      if (out.rejectedRecords.length || refusedChunks.length) process.exitCode = EXIT_CODES.failed; // records or chunks refused, the rest scored
      // Nothing was evaluated: no verdict can be read from this run (the revision is wrong, not the ranking).
      if (out.refused.length === gold.cases.length) throw new Error(`every gold case (${gold.cases.length}) was refused: none is pinned to the index's revision ${index.manifest.revision} (index the cases' revision, or relabel them)`);
      if (stale.length) process.exitCode = EXIT_CODES.failed;
      if (gold.errors.length) process.exitCode = EXIT_USAGE;
    }));

  repo
    .command('schema')
    .addHelpText('after', '\nExample:\n  $ execretrieval repo schema gold   # what a gold case may hold')
    .description('print the JSON Schema of a record: gold (a gold case), manifest (index manifest), result (case result)')
    .argument('<record>', 'gold | manifest | result')
    .action(oneLine((record: string) => {
      const schemas = { gold: GoldCase, manifest: IndexManifest, result: CaseResult } as const;
      const s = schemas[record as keyof typeof schemas];
      if (!s) throw new Error(`unknown record ${JSON.stringify(record)} (gold, manifest, result)`);
      console.log(JSON.stringify(z.toJSONSchema(s, { io: 'input' }), null, 2));
    }));

  repo
    .command('diagnose')
    .addHelpText('after', '\nExample:\n  $ execretrieval repo diagnose --run own --retriever bm25 --top 3')
    .description('print failed cases with their top results and the first broken boundary')
    .requiredOption('--run <dir>', 'run directory (runs/<id>/repo) or run id')
    .option('--retriever <name>', 'only this retriever configuration')
    .option('--case <id>', 'only this case')
    .option('--top <n>', 'ranked results to show', '5')
    .action(oneLine((o: { run: string; retriever?: string; case?: string; top: string }) => {
      const dir = repoRunDir(o.run);
      const results = readResults(dir).filter((r) => !r.passed && (!o.retriever || r.retriever === o.retriever) && (!o.case || r.case_id === o.case));
      for (const r of results) {
        const rec = JSON.parse(readFileSync(caseFile(dir, r.retriever, r.case_id), 'utf8')).record as RetrievalRecord;
        console.log(`CASE ${r.case_id} [${r.retriever}] query=${r.query}`);
        console.log(`  expected_revision=${r.case_revision} index_revision=${r.index_revision} cutoff=${r.cutoff}`);
        for (const c of rec.candidates_after_rerank.slice(0, Number(o.top))) {
          console.log(`  rank=${c.rank} file=${c.file} symbol=${c.symbols[0] ?? '-'} role=${c.role} revision=${c.revision.slice(0, 12)}`);
        }
        console.log(`  diagnosis=${r.diagnosis} first_relevant_rank=${r.first_relevant_rank ?? 'null'} missing=[${r.missing_group_ids.join(', ')}] forbidden=[${r.forbidden_chunk_ids.join(', ')}]`);
        for (const g of r.group_diagnoses) console.log(`    ${g.group_id}: ${g.diagnosis} — ${g.detail}`);
      }
      if (results.length === 0) console.log('no failed cases');
      const names = readdirSync(join(dir, 'cases'));
      if (o.retriever && !names.includes(retrieverFolder(o.retriever))) console.error(`(no results for retriever ${o.retriever}; have ${names.join(', ')})`);
    }));

  repo
    .command('gate')
    .addHelpText('after', '\nExample:\n  $ execretrieval repo gate --run own --retriever bm25+ctx+rerank --min-evidence 0.8 --max-forbidden 1   # exit 1 and a summary when a threshold is missed')
    .description('CI gate: exits 1 with a readable summary when a threshold is missed')
    .requiredOption('--run <dir>', 'run directory (runs/<id>/repo) or run id')
    .requiredOption('--retriever <name>', 'the configuration that ships, as the run names it (e.g. bm25+ctx+rerank, hybrid_rrf(bm25+symbol+dense:<config_id>)+ctx+rerank)')
    .option('--expect-rev <commit>', 'fail unless the run\'s index was built from this commit')
    .option('--min-evidence <rate>', 'minimum share of cases with all required evidence at cutoff', String(DEFAULT_GATE.minRequiredEvidenceRate))
    .option('--max-forbidden <n>', 'maximum cases with a forbidden source in context', String(DEFAULT_GATE.maxForbiddenCases))
    .option('--slice-min <spec>', 'per-slice minimum, dimension=slice:minRate[:minCases] (repeatable)', collect)
    .option('--no-revision-integrity', 'do not require revision integrity (not recommended)')
    .option('--allow-stale-gold', 'list gold targets absent at their pinned revision without failing on them (while they are relabelled)')
    .option('--max-text-share <rate>', 'maximum share of code lines indexed as plain text (no grammar)', String(DEFAULT_GATE.maxTextCodeShare ?? 1))
    .action(oneLine((o: { run: string; retriever: string; expectRev?: string; minEvidence: string; maxForbidden: string; sliceMin?: string[]; revisionIntegrity: boolean; allowStaleGold?: boolean; maxTextShare: string }) => {
      const rate = (flag: string, v: string) => {
        const x = Number(v);
        if (!(v.trim() !== '' && x >= 0 && x <= 1)) throw new Error(`${flag}: ${JSON.stringify(v)} is not a rate within [0, 1]`);
        return x;
      };
      const minRequiredEvidenceRate = rate('--min-evidence', o.minEvidence);
      const maxForbiddenCases = Number(o.maxForbidden);
      if (!Number.isInteger(maxForbiddenCases) || maxForbiddenCases < 0) throw new Error(`--max-forbidden: ${JSON.stringify(o.maxForbidden)} is not a whole number >= 0`);
      const sliceMinimums = (o.sliceMin ?? []).map(parseSliceMinimum);
      if (o.expectRev !== undefined && !Revision.safeParse(o.expectRev).success) throw new Error(`--expect-rev: ${JSON.stringify(o.expectRev)} is not a commit id (7 to 40 lowercase hex digits; branch names move)`);
      const dir = repoRunDir(o.run);
      const all = readResults(dir);
      const summary = readSummary(dir);
      const results = all.filter((r) => r.retriever === o.retriever);
      const verdict = evaluateGate(
        {
          retriever: o.retriever,
          results,
          retrieversInRun: [...new Set(all.map((r) => r.retriever))],
          goldErrors: summary.gold_errors.filter((e) => e.kind !== 'stale_target').map(formatGoldError),
          staleGold: summary.gold_errors.filter((e) => e.kind === 'stale_target').map(formatGoldError),
          allowStaleGold: o.allowStaleGold === true,
          index: summary.index,
          expectRevision: o.expectRev,
          refused: summary.refused,
          rejectedRecords: summary.rejected_records,
          refusedChunks: summary.index_refused_chunks,
          codeAsText: summary.index.code_as_text,
          resultsSha256: { recorded: summary.results_sha256, actual: sha256(readFileSync(join(dir, 'results.jsonl'))) },
        },
        { minRequiredEvidenceRate, maxForbiddenCases, requireRevisionIntegrity: o.revisionIntegrity, sliceMinimums, maxTextCodeShare: rate('--max-text-share', o.maxTextShare) },
      );
      console.log(`gate for ${o.retriever} (${results.length} cases, ${dir})`);
      console.log(formatGate(verdict));
      if (!verdict.ok) process.exitCode = EXIT_GATE_FAILED;
    }));
}
