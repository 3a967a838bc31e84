/**
 * The activities of `runPipeline` (workflows/runPipeline.ts). They wrap the functions `build` and `score` always
 * ran — buildBenchmark, scoreRun, writeReport — unchanged; what changes is where their executions run: each
 * stage attempt answers from the execution cache and hands its misses back (deferredExec.ts), and
 * `pipelineExecuteBatch` runs them on the exec queue.
 *
 * exec queue:    pipelineSandboxLayers, pipelineBuildAttempt (imports, enumerates mutants, gates: Python), pipelineExecuteBatch
 * default queue: pipelineBuildState, pipelineScoreAttempt (ranking, scoring, statistics, report), pipelineReport, pipelineRecord
 */
import { resolve, join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { benchmarkCompleteness } from '../benchmark/complete.ts';
import { buildBenchmark, rejectionsByStage } from '../benchmark/build.ts';
import { runGate } from '../gate/gate.ts';
import { faultStrict } from '../exec/faultStrict.ts';
import type { Oracle, SandboxLayers } from '../exec/types.ts';
import { scoreRun } from '../scoring/scoreRun.ts';
import { writeReport } from '../scoring/writeReport.ts';
import { scoringDir } from '../scoring/scoringFiles.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { toTemporalFailure, withHeartbeat } from '../generation/temporalErrors.ts';
import { attemptWithDeferredExec } from './deferredExec.ts';
import { hashFiles, readPending, runManifestPath, writePending, type PendingFile } from './stageFiles.ts';

/** Which earlier attempt this one continues: the hash of the misses it handed back, which the exec queue has since run. */
export interface AttemptAfter {
  after?: string;
}

/** An attempt's stage identity: its input without `after` (the same for every attempt of one stage of one run). */
const identityOf = ({ after: _a, ...rest }: AttemptAfter & Record<string, unknown>) => JSON.stringify(rest);

export interface BuildStageInput extends AttemptAfter {
  runDir: string;
  source: string;
  out: string;
  seed: number;
  profile?: string;
  cap?: number;
  layers: SandboxLayers;
}

export interface BuildStageOutput {
  out: string;
  counts: Record<string, number>;
  /** Every release file with its sha256 (the build manifest's own list, plus the manifest). */
  files: Record<string, string>;
  /** `stage: n (codes)` for each stage that rejected something: what the CLI prints when nothing was accepted. */
  rejections: string;
}

export interface ScoreStageInput extends AttemptAfter {
  runDir: string;
  configs?: string[];
  replicates?: number;
  seed: number;
  timeout_s?: number;
  layers: SandboxLayers;
}

export interface ScoreStageOutput {
  configs: string[];
  failed_configs: { config_id: string; error: string }[];
  missing_configs: string[];
  rejected_records: number;
  executions: { pairs: number; cached: number; not_defined: number };
  files: Record<string, string>;
  report: { md: string; html: string };
}

/** `resumed`: the attempt continued the previous one where it was (same worker), not from the start. */
export type StageAttempt<T> = ({ done: true; output: T } | { done: false; pending: PendingFile }) & { resumed?: boolean };

export interface ExecBatchInput {
  runDir: string;
  file: string;
  start: number;
  end: number;
}

export interface PipelineActivityDeps {
  /** The worker's execution oracle (sandbox pool + cache), opened on first use. */
  oracle: () => Promise<Oracle>;
  log?: (msg: string) => void;
}

const DEFAULT_REPLICATES = 5000;
const ALPHA = 0.05;

async function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await withHeartbeat(fn);
  } catch (err) {
    throw toTemporalFailure(err);
  }
}

function buildOutput(out: string, rejections: string): BuildStageOutput {
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { counts: Record<string, number>; files: Record<string, string> };
  return { out, counts: manifest.counts, files: { ...manifest.files, 'manifest.json': hashFiles([join(out, 'manifest.json')])[join(out, 'manifest.json')] }, rejections };
}

/** Activities that need the sandbox and Python: they go on the exec queue. */
export function createPipelineExecActivities(deps: PipelineActivityDeps) {
  return {
    /** The layers the batches run under (recorded in the build and scoring manifests, as in-process runs do). */
    async pipelineSandboxLayers(): Promise<SandboxLayers> {
      return asActivity(async () => {
        const oracle = await deps.oracle();
        return oracle.layers ? oracle.layers() : {};
      });
    },

    async pipelineBuildAttempt(input: BuildStageInput): Promise<StageAttempt<BuildStageOutput>> {
      return asActivity(async () => {
        const got = await attemptWithDeferredExec(
          (oracle) => buildBenchmark({ source: input.source, out: resolve(input.out), seed: input.seed, profile: input.profile, cap: input.cap, oracle, gate: runGate }),
          { layers: input.layers },
          { identity: identityOf({ stage: 'build', ...input }), after: input.after },
        );
        const resumed = got.resumed ? { resumed: true } : {};
        if (!got.done) return { done: false, pending: writePending(input.runDir, 'build', got.pending), ...resumed };
        return { done: true, output: buildOutput(resolve(input.out), rejectionsByStage(got.value.report.rejections)), ...resumed };
      });
    },

    /** Runs requests [start, end) of a pending file through the sandbox; the cache keeps every verdict for the next attempt. */
    async pipelineExecuteBatch(input: ExecBatchInput): Promise<{ run: number; cached: number }> {
      return asActivity(async () => {
        const reqs = readPending(input.file, input.start, input.end);
        const oracle = faultStrict(await deps.oracle());
        // The run pays: each execution is recorded with its verdict, in one transaction (the cache's payments),
        // so a process that dies at any point mid-batch has recorded exactly the executions whose verdicts it stored.
        const results = await Promise.all(reqs.map((r) => oracle.run({ ...r, paid_by: input.runDir })));
        const run = results.filter((r) => !r.cached).length;
        return { run, cached: reqs.length - run };
      });
    },
  };
}

/** Activities that read and write the run's files (and the cache, read-only): the default queue. */
export function createPipelineDefaultActivities() {
  return {
    /** Whether runs/<id>/benchmark is complete (its manifest lists every file with the right hash). */
    async pipelineBuildState(input: { out: string }): Promise<{ complete: true; output: BuildStageOutput } | { complete: false; exists: boolean; reason: string }> {
      return asActivity(async () => {
        const c = benchmarkCompleteness(input.out);
        if (!c.complete) return { complete: false, exists: existsSync(input.out), reason: c.reason };
        return { complete: true, output: buildOutput(input.out, '') };
      });
    },

    async pipelineScoreAttempt(input: ScoreStageInput): Promise<StageAttempt<ScoreStageOutput>> {
      return asActivity(async () => {
        const got = await attemptWithDeferredExec(
          (oracle) => scoreRun({ runDir: input.runDir, oracle, configs: input.configs, replicates: input.replicates ?? DEFAULT_REPLICATES, seed: input.seed }),
          { layers: input.layers, timeoutS: input.timeout_s },
          { identity: identityOf({ stage: 'score', ...input }), after: input.after },
        );
        const resumed = got.resumed ? { resumed: true } : {};
        if (!got.done) return { done: false, pending: writePending(input.runDir, 'score', got.pending), ...resumed };
        const { manifest, report } = got.value;
        return {
          ...resumed,
          done: true,
          output: {
            configs: manifest.configs,
            failed_configs: manifest.failed_configs,
            missing_configs: manifest.missing_configs,
            rejected_records: manifest.rejections.length,
            executions: { pairs: manifest.executions.pairs, cached: manifest.executions.cached, not_defined: manifest.executions.not_defined },
            files: hashFiles([join(scoringDir(input.runDir), 'manifest.json'), ...report.files]),
            report: { md: join(report.dir, 'report.md'), html: join(report.dir, 'report.html') },
          },
        };
      });
    },

    /** `run --from report`: the report again from what scoring stored (no ranking, no execution). */
    async pipelineReport(input: { runDir: string; replicates?: number; seed: number }): Promise<Record<string, string>> {
      return asActivity(async () => {
        const report = await writeReport(input.runDir, { replicates: input.replicates ?? DEFAULT_REPLICATES, seed: input.seed, alpha: ALPHA });
        return hashFiles(report.files);
      });
    },

    async pipelineRecord(input: { runDir: string; manifest: unknown }): Promise<void> {
      return asActivity(async () => writeJsonAtomic(runManifestPath(input.runDir), input.manifest));
    },
  };
}

export type PipelineExecActivities = ReturnType<typeof createPipelineExecActivities>;
export type PipelineDefaultActivities = ReturnType<typeof createPipelineDefaultActivities>;
