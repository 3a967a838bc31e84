import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { projectRoot } from '../paths.ts';
import { taskLanguage, type Task } from '../../schemas/task.ts';
import { suiteSources } from '../../schemas/exec.ts';
import { distinctSubsetsApply, getProfile } from '../../core/gate/profiles.ts';
import { PRNG_NAME } from '../../core/stats/prng.ts';
import { buildYieldReport, type YieldReport } from '../../core/mutation/yieldReport.ts';
import { manifestLayers, type Oracle } from '../exec/types.ts';
import type { GateItem, GateReport } from '../gate/gate.ts';
import { runnerVersion } from '../exec/pool.ts';
import type { MutatorOptions } from '../mutation/mutator.ts';
import { MUTATE_SCRIPT } from '../mutation/cache.ts';
import { mutateAndVerify, type MutationOutcome, type VerifyTimings } from '../mutation/verify.ts';
import { suiteFacts } from '../python/astFacts.ts';
import { callsTestFacts } from '../languages/codeFacts.ts';
import { splitCheckSuites, type CheckSuiteReport } from './checkSuites.ts';
import { dropNoOpTests, type NoOpTestReport } from './noOpTests.ts';
import { countingOracle } from '../exec/countingOracle.ts';
import type { TimeBreakdown } from '../../core/timing/breakdown.ts';
import type { ImportedTask } from '../importers/types.ts';
import { toRelease } from '../importers/release.ts';
import { writeJsonAtomic, writeJsonlAtomic } from '../storage/atomic.ts';
import { writeCorpusParquet, writeQueriesParquet } from './parquetRelease.ts';
import { loadSource, resolveSource, sourceFiles } from './sources.ts';
import { CANONICAL_CPU_FILE, readCanonicalCpu, recordedCpuPath, writeCanonicalCpu, type CanonicalCpu } from '../mutation/canonicalCpu.ts';

export interface BuildOptions {
  source: string;
  out: string;
  seed: number;
  /** Gate profile; default: `mbpp` for MBPP, `default` otherwise. */
  profile?: string;
  oracle: Oracle;
  /** The five-stage gate (injected so tests and callers choose the implementation). */
  gate: (items: readonly GateItem[], oracle: Oracle, profile: ReturnType<typeof getProfile>) => Promise<GateReport>;
  mutator?: MutatorOptions;
  /** Candidates verified per task per round, and the per-task cap. */
  roundSize?: number;
  cap?: number;
  /**
   * The canonicals' recorded CPU times (activities/mutation/canonicalCpu.ts): a path, null to measure every one
   * here, or (default) the source's own recording when it has one.
   */
  canonicalCpu?: string | null;
  onProgress?: (message: string) => void;
}

export interface BuildRejection {
  task_id?: string;
  file?: string;
  line?: number;
  stage: string;
  code: string;
  field?: string;
  message: string;
}

export interface BuildReport {
  yield: YieldReport;
  gate_stage_counts: GateReport['stage_counts'] | null;
  /** check(candidate) suites: split into one test per assert, or kept whole (with the reason). */
  check_programs: CheckSuiteReport;
  /** Tests no candidate can fail (`assert True, "..."`), dropped from their suites before the gate, per task. */
  noop_tests: NoOpTestReport;
  /** Tasks by the per-suite limit their mutants ran under (seconds; core/mutation/timeLimit.ts). */
  mutant_timeout_s: Record<string, number>;
  rejections: BuildRejection[];
}

export interface BuildManifest {
  format: string;
  source: { kind: string; files: { name: string; sha256: string }[]; languages?: string[] };
  /** Accepted tasks per language; absent when every one is Python (a Python manifest keeps its bytes). */
  languages?: Record<string, number>;
  seed: number;
  profile: string;
  mutation: {
    distractors_max: number; round_size: number; cap: number; prng: string; mutate_py_sha256: string; runner_version: string;
    /** Where the mutants' limits came from: canonicals whose CPU time was recorded (and that file's sha256) or measured here. */
    canonical_cpu: { recorded: number; measured: number; recording_sha256: string | null };
  };
  /** The sandbox's isolation layers in force for the verification and gate runs (manifestLayers), null when not reported. */
  sandbox_layers: Record<string, boolean | number | string> | null;
  counts: {
    input_records: number; import_rejected: number; precheck_rejected: number; mutation_rejected: number; gate_rejected: number;
    queries: number; corpus: number; distractors: number;
  };
  distractors_per_task: Record<string, number>;
  bug_types: Record<string, number>;
  /**
   * Accepted tasks by what became of a query taken from the code's docstring (the importer's task
   * metadata.query_docstring: removed from the code, kept, not_in_code); empty when no query came from one.
   */
  query_docstrings: Record<string, number>;
  files: Record<string, string>;
}

/**
 * Where the rejections happened, in pipeline order, each stage with its reasons by frequency:
 * `precheck: 164 (164 TESTS_DO_NOT_CALL_FUNCTION)`. What `build` prints when it accepted nothing.
 */
export function rejectionsByStage(rejections: readonly BuildRejection[]): string {
  const stages = new Map<string, Map<string, Set<string>>>();
  rejections.forEach((r, i) => {
    const codes = stages.get(r.stage) ?? new Map<string, Set<string>>();
    stages.set(r.stage, codes);
    // A task the gate rejects for several reasons counts once per reason but once in the stage total.
    const set = codes.get(r.code) ?? new Set<string>();
    set.add(r.task_id ?? `${r.file}:${r.line}:${i}`);
    codes.set(r.code, set);
  });
  return [...stages].map(([stage, codes]) => {
    const tasks = new Set([...codes.values()].flatMap((s) => [...s]));
    const parts = [...codes].sort((a, b) => b[1].size - a[1].size || a[0].localeCompare(b[0])).map(([c, s]) => `${s.size} ${c}`);
    return `${stage}: ${tasks.size} (${parts.join(', ')})`;
  }).join('; ');
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

function countBy<T>(items: readonly T[], key: (t: T) => string, numeric = false): Record<string, number> {
  const m = new Map<string, number>();
  for (const it of items) m.set(key(it), (m.get(key(it)) ?? 0) + 1);
  const keys = [...m.keys()].sort(numeric ? (a, b) => Number(a) - Number(b) : undefined);
  return Object.fromEntries(keys.map((k) => [k, m.get(k)!]));
}

/**
 * import -> mutate + verify -> gate -> release files. Writes into `out`: queries.jsonl, corpus.jsonl, their
 * Parquet copies, report.json (yield and every rejection with its reason) and manifest.json (counts, seed,
 * versions, hashes). Nothing in the output depends on time or machine load, so the same inputs and seed give
 * byte-identical files.
 */
export async function buildBenchmark(opts: BuildOptions): Promise<{ manifest: BuildManifest; report: BuildReport; accepted: Task[]; timings: TimeBreakdown }> {
  const say = opts.onProgress ?? (() => {});
  const t0 = performance.now();
  const clock = () => (performance.now() - t0) / 1000;
  const { oracle, counts } = countingOracle(opts.oracle);
  const src = resolveSource(opts.source);
  const profile = getProfile(opts.profile ?? src.profile);
  const roundSize = opts.roundSize ?? 4;
  const cap = opts.cap ?? 40;
  const cpuPath = opts.canonicalCpu === undefined ? recordedCpuPath(src, projectRoot()) : opts.canonicalCpu;
  const recordedCpu = cpuPath ? readCanonicalCpu(cpuPath) : undefined;
  if (cpuPath) say(`canonical CPU times recorded in ${cpuPath}: ${recordedCpu!.size} tasks`);
  say(`importing ${src.kind} from ${src.path}`);
  const imported = await loadSource(src);
  const rejections: BuildRejection[] = imported.rejections.map((r) => ({ ...r, stage: 'import' }));
  say(`${imported.tasks.length} tasks imported, ${imported.rejections.length} rejected`);
  const checks = await splitCheckSuites(imported.tasks);
  if (checks.report.split.length || checks.report.kept.length) {
    say(`check programs: ${checks.report.split.length} split into one test per assert, ${checks.report.kept.length} kept whole`);
  }
  const noOps = await dropNoOpTests(checks.tasks);
  if (noOps.report.dropped) {
    say(`no-op tests: ${noOps.report.dropped} tests no candidate can fail (assert True, ...) dropped from ${Object.keys(noOps.report.by_task).length} tasks`);
  }
  // Tests that never call the function would make every mutant "equivalent": reject before paying for that.
  // The gate's AST stage asks the same question (suiteFacts); tests that do not parse are its to report.
  const items: ImportedTask[] = [];
  // A calls suite (JavaScript, TypeScript, Go) calls the function by construction: only Python suites are asked.
  const pyIdx = noOps.tasks.flatMap(({ task }, i) => (task.tests.kind === 'calls' ? [] : [i]));
  const pyFacts = await suiteFacts(pyIdx.map((i) => ({ suite: noOps.tasks[i].task.tests, target: noOps.tasks[i].task.function_name })));
  const facts = noOps.tasks.map(({ task }) => (task.tests.kind === 'calls' ? callsTestFacts(task.tests) : []));
  pyIdx.forEach((i, k) => (facts[i] = pyFacts[k]));
  noOps.tasks.forEach((it, i) => {
    if (facts[i].every((t) => t.parses) && !facts[i].some((t) => t.calls_target)) {
      const message = it.task.tests.kind === 'check'
        ? `check() never uses its parameter and the program never names ${it.task.function_name}()`
        : `no test calls ${it.task.function_name}()`;
      rejections.push({ task_id: it.task.task_id, file: it.file, line: it.line, stage: 'precheck', code: 'TESTS_DO_NOT_CALL_FUNCTION', field: 'tests', message });
    } else items.push(it);
  });

  // The distinct-subset rule depends on each suite's size (profiles.ts), so tasks are verified in two groups,
  // at once (each task goes at its own pace; a group never waits for the other).
  const tVerify = clock();
  const verify: VerifyTimings = { enumerate_s: 0, canonicals_s: 0, verification_s: 0 };
  const job = ({ task }: ImportedTask) => ({ task_id: task.task_id, canonical: task.canonical, function_name: task.function_name, suite: task.tests });
  const distinct = items.map(({ task }) => distinctSubsetsApply(profile, suiteSources(task.tests).length));
  const outcomes: MutationOutcome[] = new Array(items.length);
  await Promise.all([true, false].map(async (flag) => {
    const idx = items.flatMap((_, i) => (distinct[i] === flag ? [i] : []));
    if (!idx.length) return;
    const got = await mutateAndVerify(idx.map((i) => job(items[i])), oracle, {
      seed: opts.seed, max: profile.distractors.max, distinctSubsets: flag, roundSize, cap, mutator: opts.mutator, onProgress: say, recordedCpu,
      onTimings: (t) => {
        for (const k of ['enumerate_s', 'canonicals_s', 'verification_s'] as const) verify[k] = Math.max(verify[k], t[k]);
      },
    });
    idx.forEach((i, k) => (outcomes[i] = got[k]));
  }));
  const gateItems: GateItem[] = [];
  outcomes.forEach((o, i) => {
    const { task, file, line } = items[i];
    if (o.rejection) rejections.push({ task_id: task.task_id, file, line, stage: 'mutation', code: o.rejection.code, field: o.rejection.field, message: o.rejection.message });
    else gateItems.push({ task: { ...task, distractors: o.distractors }, file, line });
  });

  say(`gate (${profile.name}) over ${gateItems.length} tasks`);
  const tGate = clock();
  const gate = await opts.gate(gateItems, oracle, profile);
  const tWrite = clock();
  for (const r of gate.rejections) {
    rejections.push({ task_id: r.task_id, file: r.file, line: r.line, stage: r.stage_name, code: r.code, field: r.field, message: r.message });
  }
  const accepted = gate.accepted;
  const { queries, corpus } = toRelease(accepted);

  const report: BuildReport = {
    yield: buildYieldReport(outcomes.map((o) => ({ candidates: o.candidates, verified: o.verified, selected: o.selected }))),
    gate_stage_counts: gate.stage_counts,
    check_programs: checks.report,
    noop_tests: noOps.report,
    mutant_timeout_s: countBy(outcomes.filter((o) => o.mutant_timeout_s !== undefined), (o) => String(o.mutant_timeout_s), true),
    rejections,
  };
  // One key: parquet-wasm writes key-value metadata in hash-map order, so several keys would make the bytes
  // differ from run to run.
  const meta = { execretrieval: JSON.stringify({ seed: opts.seed, profile: profile.name, source: src.kind }) };
  const out = opts.out;
  say(`writing ${queries.length} queries and ${corpus.length} corpus items to ${out}`);
  writeJsonlAtomic(join(out, 'queries.jsonl'), queries);
  writeJsonlAtomic(join(out, 'corpus.jsonl'), corpus);
  writeQueriesParquet(join(out, 'queries.parquet'), queries, meta);
  writeCorpusParquet(join(out, 'corpus.parquet'), corpus, meta);
  writeJsonAtomic(join(out, 'report.json'), report);
  // Every CPU time the limits came from, recorded or measured: kept beside the source, it makes the next build repeat this one.
  const cpuTimes = new Map<string, CanonicalCpu>();
  for (const o of outcomes) if (o.canonical_cpu) cpuTimes.set(o.task_id, { canonical_sha256: o.canonical_cpu.canonical_sha256, cpu_ms: o.canonical_cpu.cpu_ms });
  writeCanonicalCpu(join(out, CANONICAL_CPU_FILE), cpuTimes);
  const recordedCount = outcomes.filter((o) => o.canonical_cpu?.recorded).length;
  const files = Object.fromEntries(
    ['queries.jsonl', 'corpus.jsonl', 'queries.parquet', 'corpus.parquet', 'report.json'].map((f) => [f, sha256(readFileSync(join(out, f)))]),
  );
  const manifest: BuildManifest = {
    format: 'execretrieval-release/1',
    source: { kind: src.kind, files: sourceFiles(src).map((f) => ({ name: basename(f), sha256: sha256(readFileSync(f)) })), ...(src.languages ? { languages: src.languages } : {}) },
    seed: opts.seed,
    profile: profile.name,
    mutation: {
      distractors_max: profile.distractors.max, round_size: roundSize, cap, prng: PRNG_NAME,
      mutate_py_sha256: sha256(readFileSync(MUTATE_SCRIPT)), runner_version: runnerVersion(),
      canonical_cpu: { recorded: recordedCount, measured: cpuTimes.size - recordedCount, recording_sha256: cpuPath ? sha256(readFileSync(cpuPath)) : null },
    },
    sandbox_layers: opts.oracle.layers ? manifestLayers(await opts.oracle.layers()) : null,
    counts: {
      input_records: imported.tasks.length + imported.rejections.length,
      import_rejected: imported.rejections.length,
      precheck_rejected: imported.tasks.length - items.length,
      mutation_rejected: rejections.filter((r) => r.stage === 'mutation').length,
      gate_rejected: gateItems.length - accepted.length,
      queries: queries.length,
      corpus: corpus.length,
      distractors: corpus.length - queries.length,
    },
    distractors_per_task: countBy(accepted, (t) => String(t.distractors.length), true),
    bug_types: countBy(accepted.flatMap((t) => t.distractors), (d) => d.bug_type),
    query_docstrings: countBy(accepted.filter((t) => typeof t.metadata?.query_docstring === 'string'), (t) => t.metadata!.query_docstring as string),
    files,
    ...(accepted.some((t) => taskLanguage(t) !== 'python') ? { languages: countBy(accepted, (t) => taskLanguage(t)) } : {}),
  };
  writeJsonAtomic(join(out, 'manifest.json'), manifest);
  const timings: TimeBreakdown = {
    // Enumeration runs alongside the canonicals, and each task's rounds start once its own canonical is known.
    phases: [
      ['import + precheck', tVerify],
      ['enumerate (within verification)', verify.enumerate_s],
      ['canonicals (within verification)', verify.canonicals_s],
      ['verification', verify.verification_s],
      ['gate', tWrite - tGate],
      ['write', clock() - tWrite],
    ],
    total_s: clock(),
    executions: { skipped: 0, ...counts() },
  };
  // The one output that differs from run to run (it is not in manifest.files; canonical-cpu.json differs only
  // where a time was measured, and is not listed either).
  writeJsonAtomic(join(out, 'timings.json'), timings);
  return { manifest, report, accepted, timings };
}
