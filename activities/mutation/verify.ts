import type { ExecRequest, TestSuite } from '../../schemas/exec.ts';
import type { Distractor } from '../../schemas/task.ts';
import { classifyOutcomes } from '../../core/mutation/classify.ts';
import { describeMutation } from '../../core/mutation/describe.ts';
import { verificationOrder } from '../../core/mutation/order.ts';
import { isDone, kept, nextRound, type RoundLimits, type TaskProgress } from '../../core/mutation/rounds.ts';
import { selectDistractors } from '../../core/mutation/select.ts';
import type { MutationCandidate, VerifiedCandidate } from '../../core/mutation/types.ts';
import type { Oracle } from '../exec/types.ts';
import { enumerateMutants, type MutatorOptions } from './mutator.ts';

export interface MutationJob {
  task_id: string;
  canonical: string;
  function_name: string;
  suite: TestSuite;
}

export interface MutationRejection {
  task_id: string;
  code: 'CANONICAL_UNPARSABLE' | 'CANONICAL_FAILS' | 'NO_CANDIDATES' | 'NO_VERIFIED_MUTANT';
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
}

export interface MutateVerifyOptions extends Partial<RoundLimits> {
  seed: number;
  mutator?: MutatorOptions;
  onProgress?: (message: string) => void;
}

/**
 * Per-suite timeout for mutants. A mutated loop that never ends is common, so mutants get less time than the
 * oracle's 5 s default unless the canonical itself is slow. Two fixed tiers rather than a multiple of the
 * measured time: the timeout is part of the execution-cache key, and a key that moved with machine load
 * would make a warm rebuild miss the cache (and could change its results).
 */
function mutantTimeoutS(canonicalWallMs: number): number {
  return canonicalWallMs < 250 ? 1 : canonicalWallMs < 1000 ? 3 : 5;
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
 * Enumerate, verify and select mechanical distractors for a batch of tasks. The canonical runs first (a task
 * whose canonical fails is rejected); then candidates are verified in rounds, a few per task per round in
 * priority order, all tasks of a round in one `runMany`, until each task has enough diverse survivors.
 * Results depend only on inputs, seed and execution outcomes, never on timing.
 */
export async function mutateAndVerify(jobs: readonly MutationJob[], oracle: Oracle, opts: MutateVerifyOptions): Promise<MutationOutcome[]> {
  const limits: RoundLimits = { max: opts.max ?? 4, roundSize: opts.roundSize ?? 4, cap: opts.cap ?? 40, distinctSubsets: opts.distinctSubsets ?? true };
  const say = opts.onProgress ?? (() => {});
  const outcomes: MutationOutcome[] = jobs.map((j) => ({ task_id: j.task_id, candidates: [], verified: [], selected: [], distractors: [] }));
  const reject = (i: number, code: MutationRejection['code'], field: string, message: string) => {
    outcomes[i].rejection = { task_id: jobs[i].task_id, code, field, message };
  };

  say(`enumerating candidates for ${jobs.length} tasks`);
  const enumerated = await enumerateMutants(jobs.map((j, i) => ({ id: String(i), code: j.canonical, function_name: j.function_name })), opts.mutator);

  say(`running ${jobs.length} canonicals`);
  const canon = await oracle.runMany(jobs.map((j) => ({ code: j.canonical, suite: j.suite })), {
    onProgress: (d, n) => d % 200 === 0 && say(`canonicals ${d}/${n}`),
  });

  const progress = new Map<number, TaskProgress>();
  jobs.forEach((j, i) => {
    const e = enumerated[i];
    if (!e.ok) return reject(i, 'CANONICAL_UNPARSABLE', 'canonical', e.error);
    if (!canon[i].passed) {
      const bad = canon[i].outcomes.map((o, t) => (o === 'pass' ? null : `tests[${t}]: ${o}`)).filter(Boolean);
      return reject(i, 'CANONICAL_FAILS', 'canonical', `canonical fails its own tests (${bad.join('; ')})`);
    }
    outcomes[i].candidates = e.candidates;
    if (e.candidates.length === 0) return reject(i, 'NO_CANDIDATES', 'canonical', 'no mutation operator applies to this code');
    progress.set(i, { candidates: e.candidates, order: verificationOrder(e.candidates, opts.seed, j.task_id), tried: new Set(), verified: [] });
  });

  for (let round = 1; ; round++) {
    const plan: { task: number; cand: number }[] = [];
    for (const [i, p] of progress) for (const c of nextRound(p, limits)) plan.push({ task: i, cand: c });
    if (plan.length === 0) break;
    const active = new Set(plan.map((x) => x.task)).size;
    say(`round ${round}: verifying ${plan.length} candidates for ${active} tasks`);
    const reqs: ExecRequest[] = plan.map(({ task, cand }) => ({
      code: progress.get(task)!.candidates[cand].code,
      suite: jobs[task].suite,
      timeout_s: mutantTimeoutS(canon[task].wall_ms),
    }));
    const results = await oracle.runMany(reqs);
    plan.forEach(({ task, cand }, k) => {
      const p = progress.get(task)!;
      p.tried.add(cand);
      p.verified.push({ candidate: p.candidates[cand], ...classifyOutcomes(results[k].outcomes) });
    });
  }

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
