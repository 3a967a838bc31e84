import type { GoldCase } from '../../schemas/gold.ts';
import type { CaseResult, RetrievalRecord } from '../../schemas/repoIndex.ts';
import { aggregate, type AggregateRow } from '../../core/repo/aggregate.ts';
import { diagnoseCase, staleTarget, type RepoView } from '../../core/repo/diagnose.ts';
import { evaluateCase } from '../../core/repo/evaluate.ts';
import { fileMatches, sameRevision } from '../../core/repo/evidence.ts';
import { splitOf } from '../../core/repo/split.ts';
import { verifyRecord } from '../../core/repo/replay.ts';
import { approxTokens } from '../../core/repo/chunkBounds.ts';
import type { Embedder } from './embedder.ts';
import { evidenceBundle } from './evidenceBundle.ts';
import { GitRepo } from './git.ts';
import type { LoadedIndex } from './indexStore.ts';
import type { CaseRetriever } from './outside.ts';
import { grammarOf, languageOf } from './language.ts';
import { chunkFile } from './indexBuild.ts';
import { chunksByFile, retrieveForCase, retrieverSet, type PipelineConfig, type RetrieverSet } from './pipeline.ts';

/**
 * Evaluates gold cases against an index, in one of two modes that share the evaluator:
 * - live: retrieve with each pipeline configuration now;
 * - recorded: replay a previous run's RetrievalRecords (its records.jsonl), each verified against the run it
 *   names and the index (core/repo/replay.ts): identity fields come from the index, never from the record.
 * Cases pinned to a revision other than the index's are refused, not scored: that run cannot decide
 * whether ranking at the case's revision is good. Every result keeps its record and its diagnosis.
 */
export interface EvalRunInput {
  cases: readonly GoldCase[];
  index: LoadedIndex;
  repoDir: string;
  mode: 'live' | 'recorded';
  /** The run being written: every record it produces carries this id (records.jsonl is bound to its run). */
  runId?: string;
  configs?: readonly PipelineConfig[];
  recorded?: readonly RetrievalRecord[];
  /** Recorded mode: the run the records come from (core/repo/replay.ts verifies each record against it and the index). */
  replays?: string;
  embedder?: Embedder;
  /** Retrievers already built from `index` (and `embedder`): a caller evaluating many configs (tuning) builds them once. */
  retrievers?: RetrieverSet;
  /** Outside retrievers (imported runs, retrieval endpoints) that configurations with a `source` name. */
  outside?: ReadonlyMap<string, CaseRetriever>;
}

export interface EvaluatedCase {
  testCase: GoldCase;
  result: CaseResult;
  record: RetrievalRecord;
  bundle: ReturnType<typeof evidenceBundle> | null;
}

export interface EvalRunOutput {
  evaluated: EvaluatedCase[];
  results: CaseResult[];
  refused: { case_id: string; reason: string }[];
  /** Evidence targets absent at their case's pinned revision (stale gold labels), every case checked. */
  staleTargets: { case_id: string; field: string; message: string }[];
  /** Replayed records refused by verification (core/repo/replay.ts): tampered, foreign, or of another run. */
  rejectedRecords: { case_id: string; retriever: string; reason: string }[];
  aggregates: AggregateRow[];
}

function areaOf(c: GoldCase): string {
  if (c.area) return c.area;
  const f = c.evidence[0].anyOf[0].file;
  return f.includes('/') ? f.slice(0, f.indexOf('/')) : '(root)';
}

function languageOfCase(c: GoldCase): string {
  return c.context?.language ?? languageOf(c.evidence[0].anyOf[0].file);
}

/** Texts of the tree at the index revision, read from git's object store on demand and cached. */
class TreeTexts {
  private cache = new Map<string, string>();
  constructor(private git: GitRepo, private oidOf: Map<string, string>) {}
  async prefetch(paths: readonly string[]): Promise<void> {
    const want = paths.filter((p) => !this.cache.has(p) && this.oidOf.has(p));
    if (!want.length) return;
    const blobs = await this.git.readBlobs(want.map((p) => this.oidOf.get(p)!));
    for (const p of want) this.cache.set(p, blobs.get(this.oidOf.get(p)!)!.toString('utf8'));
  }
  get(path: string): string | undefined {
    return this.cache.get(path);
  }
}

export async function runEvaluation(input: EvalRunInput): Promise<EvalRunOutput> {
  const { index } = input;
  const refused: EvalRunOutput['refused'] = [];
  const cases = input.cases.filter((c) => {
    if (sameRevision(c.repositoryRevision, index.manifest.revision)) return true;
    refused.push({ case_id: c.id, reason: `pinned to ${c.repositoryRevision}, index ${index.manifest.index_build_id} built from ${index.manifest.revision}` });
    return false;
  });

  const records: RetrievalRecord[] = [];
  const rejectedRecords: EvalRunOutput['rejectedRecords'] = [];
  const stamp = (r: RetrievalRecord): RetrievalRecord => (input.runId ? { ...r, run_id: input.runId } : r);
  let set = input.retrievers;
  const byId = set?.byId ?? new Map(index.chunks.map((c) => [c.chunk_id, c]));
  const byCase = new Map(cases.map((c) => [c.id, c]));
  if (input.mode === 'live') {
    set ??= retrieverSet(index, input.embedder, input.outside);
    for (const cfg of input.configs ?? []) for (const c of cases) records.push(stamp(await retrieveForCase(c, index, set, cfg)));
  } else {
    const ctx = { runId: input.replays ?? '(none named)', indexBuildId: index.manifest.index_build_id, indexRevision: index.manifest.revision, chunkOf: (id: string) => byId.get(id) };
    for (const r of input.recorded ?? []) {
      const testCase = byCase.get(r.case_id);
      if (!testCase) continue; // a case refused for its revision (listed), or one this replay does not evaluate
      const v = verifyRecord(r, testCase, ctx);
      if (!v.ok) {
        rejectedRecords.push({ case_id: r.case_id, retriever: r.retriever, reason: v.reason });
        continue;
      }
      // The re-scored record belongs to this run (its records.jsonl is replayable in turn).
      records.push(stamp(v.record));
    }
  }

  const inventory = new Map(index.inventory.map((e) => [e.path, e]));
  const paths = index.inventory.map((e) => e.path);
  const texts = new TreeTexts(new GitRepo(input.repoDir), new Map(index.inventory.map((e) => [e.path, e.oid])));
  const byFile = set?.byFile ?? chunksByFile(index.chunks);
  // What each target file's syntax tree defines at the index revision (= every case's revision), parsed here
  // rather than read from the index: a chunk the index lost or mislabelled is an index fault, not stale gold.
  const defs = new Map<string, ReadonlySet<string> | null>();
  const loadDefinitions = async (files: readonly string[]) => {
    await texts.prefetch(files);
    for (const p of files) {
      if (defs.has(p)) continue;
      if (!grammarOf(languageOf(p))) {
        defs.set(p, null);
        continue;
      }
      const chunks = await chunkFile(p, texts.get(p) ?? '', index.manifest.revision);
      defs.set(p, new Set(chunks.flatMap((c) => c.symbols)));
    }
  };
  const view: RepoView = { paths, text: (p) => texts.get(p), inventory: (p) => inventory.get(p), chunksOf: (p) => byFile.get(p) ?? [], definitions: (p) => defs.get(p) ?? null };
  // Stale gold: every target of every case that runs, not only those of failed cases (a stale alternative
  // in an anyOf group can sit beside a passing one and still be a wrong label).
  const staleTargets: EvalRunOutput['staleTargets'] = [];
  const symbolFiles = cases.flatMap((c) => c.evidence.flatMap((g) => g.anyOf.filter((t) => t.symbol !== undefined).flatMap((t) => paths.filter((p) => fileMatches(p, t.file)))));
  await loadDefinitions([...new Set(symbolFiles)]); // one read of the object store for every case
  for (const c of cases) {
    c.evidence.forEach((g, gi) =>
      g.anyOf.forEach((t, ti) => {
        const why = staleTarget(t, c.repositoryRevision, view);
        if (why) staleTargets.push({ case_id: c.id, field: `evidence.${gi}.anyOf.${ti}`, message: `stale gold label: ${why}` });
      }),
    );
  }
  const tokensOf = new Map<string, number>();
  const cost = (ids: readonly string[]) => {
    let lines = 0;
    let tokens = 0;
    for (const id of ids) {
      const c = byId.get(id);
      if (!c) continue; // a recorded id the index does not have: it costs nothing we can count
      lines += c.end_line - c.start_line + 1;
      let t = tokensOf.get(id);
      if (t === undefined) tokensOf.set(id, (t = approxTokens(c.text)));
      tokens += t;
    }
    return { lines, tokens };
  };

  const evaluated: EvaluatedCase[] = [];
  for (const record of records) {
    const testCase = byCase.get(record.case_id)!;
    const metrics = evaluateCase(testCase, record.candidates_after_rerank);
    if (!metrics.passed) {
      const targetFiles = testCase.evidence.flatMap((g) => g.anyOf.flatMap((t) => paths.filter((p) => fileMatches(p, t.file))));
      await loadDefinitions([...new Set(targetFiles)]);
    }
    const d = metrics.passed
      ? { diagnosis: 'passed' as const, detail: '', groups: [] }
      : diagnoseCase({ testCase, metrics, index: { revision: index.manifest.revision, completed: index.manifest.completed }, repo: view, before: record.candidates_before_rerank, after: record.candidates_after_rerank });
    const result: CaseResult = {
      case_id: testCase.id,
      retriever: record.retriever,
      mode: input.mode,
      query: testCase.query,
      query_class: testCase.queryClass,
      language: languageOfCase(testCase),
      area: areaOf(testCase),
      split: splitOf(testCase),
      case_revision: testCase.repositoryRevision,
      index_revision: index.manifest.revision,
      index_build_id: index.manifest.index_build_id,
      cutoff: testCase.cutoff,
      context: testCase.context,
      required_evidence: metrics.required_evidence,
      hit: metrics.hit,
      first_relevant_rank: metrics.first_relevant_rank,
      reciprocal_rank: metrics.reciprocal_rank,
      group_recall: metrics.group_recall,
      missing_group_ids: metrics.missing_group_ids,
      forbidden_chunk_ids: metrics.forbidden_chunk_ids,
      revision_mismatches: metrics.revision_mismatches,
      passed: metrics.passed,
      diagnosis: d.diagnosis,
      group_diagnoses: d.groups,
      final_context_ids: record.candidates_after_rerank.slice(0, testCase.cutoff).map((c) => c.chunk_id),
    };
    const spent = cost(result.final_context_ids);
    result.context_lines = spent.lines;
    result.context_tokens = spent.tokens;
    const bundle = metrics.passed
      ? null
      : evidenceBundle({ testCase, result, record, manifest: index.manifest, inventory: (p) => inventory.get(p), paths, text: (p) => texts.get(p) });
    evaluated.push({ testCase, result, record, bundle });
  }
  const results = evaluated.map((e) => e.result);
  return { evaluated, results, refused, staleTargets, rejectedRecords, aggregates: aggregate(results) };
}
