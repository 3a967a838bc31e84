import { suiteSources, type ExecRequest, type TestSuite } from '../../schemas/exec.ts';
import type { Distractor } from '../../schemas/task.ts';
import { classifyOutcomes } from '../../core/mutation/classify.ts';
import { describeMutation } from '../../core/mutation/describe.ts';
import { verificationOrder } from '../../core/mutation/order.ts';
import { isDone, kept, nextRound, type RoundLimits, type TaskProgress } from '../../core/mutation/rounds.ts';
import { selectDistractors } from '../../core/mutation/select.ts';
import { CANONICAL_MAX_CPU_MS, canonicalTooSlow, mutantTimeLimitS } from '../../core/mutation/timeLimit.ts';
import type { MutationCandidate, VerifiedCandidate } from '../../core/mutation/types.ts';
import type { Oracle } from '../exec/types.ts';
import { enumerateMutants, type MutatorOptions } from './mutator.ts';
import { faultStrict } from '../exec/faultStrict.ts';
import { canonicalSha256, recordedCpuMs, type RecordedCpu } from './canonicalCpu.ts';

export interface MutationJob {
  task_id: string;
  canonical: string;
  function_name: string;
  suite: TestSuite;
}

export interface MutationRejection {
  task_id: string;
  code: 'CANONICAL_UNPARSABLE' | 'CANONICAL_FAILS' | 'CANONICAL_TOO_SLOW' | 'NO_CANDIDATES' | 'NO_VERIFIED_MUTANT';
  field: string;
  message: string;
}

export interface MutationOutcome {
  task_id: string;
  candidates: MutationCandidate[];
  verified: VerifiedCandidate[];
  selected: VerifiedCandidate[];
  distractors: Distractor[];
  rejection?: MutationRejection;
  /** The per-suite limit its mutants ran under (core/mutation/timeLimit.ts); absent when none ran. */
  mutant_timeout_s?: number;
  /** The canonical's CPU time the limit came from: recorded (canonicalCpu.ts) or measured in this build. */
  canonical_cpu?: { cpu_ms: number; canonical_sha256: string; recorded: boolean };
}

/** Where verification's time went: each phase's end, in seconds from the start (the phases overlap). */
export interface VerifyTimings {
  enumerate_s: number;
  canonicals_s: number;
  verification_s: number;
}

export interface MutateVerifyOptions extends Partial<RoundLimits> {
  seed: number;
  mutator?: MutatorOptions;
  onProgress?: (message: string) => void;
  /** Receives the phase timings once verification is over. */
  onTimings?: (t: VerifyTimings) => void;
  /** Canonicals' CPU times recorded earlier (canonicalCpu.ts): used instead of this build's measurement. */
  recordedCpu?: RecordedCpu;
}

function toDistractor(v: VerifiedCandidate, canonical: string): Distractor {
  const c = v.candidate;
  return {
    code: c.code,
    bug_type: c.bug_type,
    bug_description: describeMutation(c, canonical),
    span: { start: c.start, end: c.end, line: c.line },
    failing_tests: v.failing_tests,
    operator: c.operator,
  };
}

/**
 * Enumerate, verify and select mechanical distractors for a batch of tasks. Each task goes at its own pace:
 * its canonical runs (a task whose canonical fails is rejected), then its candidates are verified in rounds, a
 * few per round in priority order, until it has enough diverse survivors, each round as soon as the previous
 * one is known. No task waits for another's canonical or round; the oracle's pool bounds the concurrency.
 * Mutants run under a limit derived from their canonical's CPU time (core/mutation/timeLimit.ts): the recorded
 * one when `recordedCpu` has it, so that the measurement, which follows the load, is an input and not a source
 * of different verdicts (canonicalCpu.ts). Results depend only on inputs, seed, recorded times and execution
 * outcomes, never on timing: a task's rounds depend on its own results only.
 */
export async function mutateAndVerify(jobs: readonly MutationJob[], anyOracle: Oracle, opts: MutateVerifyOptions): Promise<MutationOutcome[]> {
  // A fault is never a verdict on a mutant: retried once, then InfraFault stops the step.
  const oracle = faultStrict(anyOracle);
  const limits: RoundLimits = { max: opts.max ?? 4, roundSize: opts.roundSize ?? 4, cap: opts.cap ?? 40, distinctSubsets: opts.distinctSubsets ?? true };
  const say = opts.onProgress ?? (() => {});
  const t0 = performance.now();
  const since = () => (performance.now() - t0) / 1000;
  const outcomes: MutationOutcome[] = jobs.map((j) => ({ task_id: j.task_id, candidates: [], verified: [], selected: [], distractors: [] }));
  const reject = (i: number, code: MutationRejection['code'], field: string, message: string) => {
    outcomes[i].rejection = { task_id: jobs[i].task_id, code, field, message };
  };

  say(`enumerating candidates and running ${jobs.length} canonicals`);
  const timings: VerifyTimings = { enumerate_s: 0, canonicals_s: 0, verification_s: 0 };
  const enumerating = enumerateMutants(jobs.map((j, i) => ({ id: String(i), code: j.canonical, function_name: j.function_name, ...(j.suite.kind === 'calls' ? { language: j.suite.language } : {}) })), opts.mutator)
    .finally(() => (timings.enumerate_s = since()));
  let canonicalsDone = 0;
  let verifiedCount = 0;
  const progress = new Map<number, TaskProgress>();

  const runTask = async (i: number): Promise<void> => {
    const j = jobs[i];
    // Under the too-slow bound itself: a canonical over it is rejected anyway, so waiting out the default 5 s
    // (mbpp_123: 4-5 s of CPU) buys nothing. One that finishes answers the gate's and scoring's longer limits.
    const canon = await oracle.run({ code: j.canonical, suite: j.suite, timeout_s: CANONICAL_MAX_CPU_MS / 1000 });
    if (++canonicalsDone === jobs.length) timings.canonicals_s = since();
    if (canonicalsDone % 200 === 0) say(`canonicals ${canonicalsDone}/${jobs.length}, ${verifiedCount} candidates verified`);
    const e = (await enumerating)[i];
    if (!e.ok) return reject(i, 'CANONICAL_UNPARSABLE', 'canonical', e.error);
    // CPU time (wall time only from oracles that do not report it): the measure that follows the load least,
    // and the recorded one over this run's whenever there is one (canonicalCpu.ts).
    const recorded = recordedCpuMs(opts.recordedCpu, j.task_id, j.canonical, j.suite);
    const canonMs = recorded ?? canon.cpu_ms ?? canon.wall_ms;
    outcomes[i].canonical_cpu = { cpu_ms: canonMs, canonical_sha256: canonicalSha256(j.canonical, j.suite), recorded: recorded !== undefined };
    // One verdict for a slow canonical whatever the load: over the CPU bound, or out of time altogether.
    const onlyTimeouts = !canon.passed && canon.outcomes.every((o) => o === 'pass' || o === 'TIMEOUT');
    if (onlyTimeouts || (canon.passed && canonicalTooSlow(canonMs))) {
      return reject(i, 'CANONICAL_TOO_SLOW', 'canonical', `canonical takes more than ${CANONICAL_MAX_CPU_MS / 1000} s of CPU time (its mutants could not be verified within 5 s)`);
    }
    if (!canon.passed) {
      const bad = canon.outcomes.map((o, t) => (o === 'pass' ? null : `tests[${t}]: ${o}`)).filter(Boolean);
      return reject(i, 'CANONICAL_FAILS', 'canonical', `canonical fails its own tests (${bad.join('; ')})`);
    }
    outcomes[i].candidates = e.candidates;
    if (e.candidates.length === 0) return reject(i, 'NO_CANDIDATES', 'canonical', 'no mutation operator applies to this code');
    const p: TaskProgress = { candidates: e.candidates, order: verificationOrder(e.candidates, opts.seed, j.task_id), tried: new Set(), verified: [], tests: suiteSources(j.suite).length };
    progress.set(i, p);
    const timeout_s = mutantTimeLimitS(canonMs);
    outcomes[i].mutant_timeout_s = timeout_s;
    for (let picks = nextRound(p, limits); picks.length > 0; picks = nextRound(p, limits)) {
      const results = await oracle.runMany(picks.map((c): ExecRequest => ({ code: p.candidates[c].code, suite: j.suite, timeout_s })));
      picks.forEach((c, k) => {
        p.tried.add(c);
        p.verified.push({ candidate: p.candidates[c], ...classifyOutcomes(results[k].outcomes) });
      });
      verifiedCount += picks.length;
    }
  };
  await Promise.all(jobs.map((_, i) => runTask(i)));
  if (jobs.length === 0) await enumerating;
  timings.verification_s = since();
  say(`verified ${verifiedCount} candidates for ${progress.size} tasks`);
  opts.onTimings?.(timings);

  for (const [i, p] of progress) {
    if (!isDone(p, limits) && p.tried.size < p.candidates.length) throw new Error(`internal: task ${jobs[i].task_id} left unfinished`);
    const o = outcomes[i];
    o.verified = p.verified;
    o.selected = selectDistractors(kept(p), limits.max, limits.distinctSubsets);
    o.distractors = o.selected.map((v) => toDistractor(v, jobs[i].canonical));
    if (o.selected.length === 0) {
      const counts = { equivalent: 0, crash_only: 0 };
      p.verified.forEach((v) => v.verdict !== 'kept' && counts[v.verdict]++);
      reject(i, 'NO_VERIFIED_MUTANT', 'distractors',
        `no verified mutant among ${p.verified.length} tried of ${p.candidates.length} candidates (${counts.equivalent} equivalent, ${counts.crash_only} crash-only)`);
    }
  }
  return outcomes;
}
