import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { benchmarkCompleteness } from './benchmark/complete.ts';

/** One stage of a run and whether its output is on disk (each stage's last-written file marks it done). */
export interface StageState {
  stage: string;
  done: boolean;
}

export interface RunStatus {
  run_id: string;
  dir: string;
  kind: 'benchmark' | 'generation' | 'repo' | 'unknown';
  stages: StageState[];
  /** `complete`, or the first stage still to do (`incomplete: <stage>`). */
  status: string;
  /** Newest modification time of anything at the run's top level (ISO). */
  updated: string;
}

/** The stages each kind of run goes through, with the file whose presence says the stage finished. */
const STAGES: Record<Exclude<RunStatus['kind'], 'unknown'>, [string, (dir: string) => boolean][]> = {
  benchmark: [
    ['build', (d) => benchmarkCompleteness(join(d, 'benchmark')).complete || benchmarkCompleteness(d).complete],
    ['embed', (d) => existsSync(join(d, 'embeddings', 'report.json'))],
    ['score', (d) => existsSync(join(d, 'scoring', 'manifest.json'))],
    ['report', (d) => existsSync(join(d, 'report', 'summary.json'))],
  ],
  generation: [
    ['registry', (d) => existsSync(join(d, 'registry.jsonl'))],
    ['benchmark', (d) => existsSync(join(d, 'manifest.json')) && existsSync(join(d, 'benchmark-report.json'))],
    ['embed', (d) => existsSync(join(d, 'embeddings', 'report.json'))],
    ['score', (d) => existsSync(join(d, 'scoring', 'manifest.json'))],
  ],
  repo: [
    ['eval', (d) => existsSync(join(d, 'repo', 'results.jsonl'))],
    ['report', (d) => existsSync(join(d, 'repo', 'summary.json'))],
  ],
};

function kindOf(dir: string): RunStatus['kind'] {
  // A ledger alone does not make a generation run: a benchmark run's hosted embeddings write one too (issue 12),
  // so it counts only where neither a registry nor a benchmark says otherwise (a registry phase still running).
  if (existsSync(join(dir, 'registry.jsonl'))) return 'generation';
  if (existsSync(join(dir, 'benchmark')) || existsSync(join(dir, 'queries.jsonl'))) return 'benchmark';
  if (existsSync(join(dir, 'ledger.sqlite'))) return 'generation';
  if (existsSync(join(dir, 'repo'))) return 'repo';
  return 'unknown';
}

export function runStatus(dir: string, runId: string): RunStatus {
  const kind = kindOf(dir);
  const stages = kind === 'unknown' ? [] : STAGES[kind].map(([stage, done]) => ({ stage, done: done(dir) }));
  const next = stages.find((s) => !s.done);
  const mtimes = readdirSync(dir).map((f) => statSync(join(dir, f)).mtimeMs);
  return {
    run_id: runId,
    dir,
    kind,
    stages,
    status: kind === 'unknown' ? 'unknown layout' : next ? `incomplete: ${next.stage}` : 'complete',
    updated: new Date(Math.max(statSync(dir).mtimeMs, ...mtimes)).toISOString(),
  };
}

/** Every run under `runsDir`, newest first. */
export function listRuns(runsDir: string): RunStatus[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => runStatus(join(runsDir, e.name), e.name))
    .sort((a, b) => b.updated.localeCompare(a.updated) || a.run_id.localeCompare(b.run_id));
}
