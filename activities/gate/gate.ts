import { taskLanguage, type Task } from '../../schemas/task.ts';
import { suiteSources, type ExecResult } from '../../schemas/exec.ts';
import { distinctSubsetsApply, type GateProfile } from '../../core/gate/profiles.ts';
import {
  STAGES, astStage, batchIntegrity, canonicalStage, distractorStage, failingSubset, schemaStage,
  type CodeFactsLike, type GateIssue, type StageName, type TestFactLike,
} from '../../core/gate/rules.ts';
import { astFacts, suiteFacts } from '../python/astFacts.ts';
import { callsTestFacts, treeCodeFacts } from '../languages/codeFacts.ts';
import type { Oracle } from '../exec/types.ts';
import { faultStrict } from '../exec/faultStrict.ts';

export interface GateItem {
  task: Task;
  file?: string;
  line?: number;
}
export interface Rejection extends GateIssue {
  task_id: string;
  file?: string;
  line?: number;
  stage_name: StageName;
}
export interface CrossCanonicalHit {
  corpus_task_id: string;
  which: string;
  query_task_id: string;
  function_name: string;
  passed: boolean;
}
export interface GateReport {
  profile: string;
  total: number;
  accepted: Task[];
  rejections: Rejection[];
  stage_counts: Record<StageName, { entered: number; passed: number; rejected: number }>;
  multi_statement_tests: number;
  sweeps: {
    distractor_sanity: { checked: number; passing_all_own_tests: number };
    cross_canonical: { candidates: number; passing: CrossCanonicalHit[] };
  };
}

/**
 * The five sequential gates over a batch. A task leaves at the first stage that rejects it, with every
 * reason that stage found; the batch always goes on. Accepted tasks come back with each distractor's
 * `failing_tests` filled in from the oracle. Then the two integrity sweeps run over the accepted set.
 */
export async function runGate(
  items: readonly GateItem[],
  anyOracle: Oracle,
  profile: GateProfile,
  opts: { onProgress?: (stage: StageName, done: number, total: number) => void } = {},
): Promise<GateReport> {
  // An infra_error is retried once, then stops the gate (InfraFault): a fault is never a rejection.
  const oracle = faultStrict(anyOracle);
  const counts = Object.fromEntries(STAGES.map((s) => [s, { entered: 0, passed: 0, rejected: 0 }])) as GateReport['stage_counts'];
  const rejections: Rejection[] = [];
  let alive = items.map((_, i) => i);
  const reject = (i: number, issues: GateIssue[]) => {
    const { task, file, line } = items[i];
    for (const is of issues) rejections.push({ task_id: task.task_id, ...(file ? { file } : {}), ...(line ? { line } : {}), stage_name: is.stage, ...is });
  };
  const stage = async (name: StageName, check: (idx: number[]) => Promise<Map<number, GateIssue[]>> | Map<number, GateIssue[]>) => {
    counts[name].entered = alive.length;
    const issues = await check(alive);
    alive = alive.filter((i) => {
      const found = issues.get(i);
      if (found?.length) {
        reject(i, found);
        return false;
      }
      return true;
    });
    counts[name].passed = alive.length;
    counts[name].rejected = counts[name].entered - alive.length;
  };

  // 1. schema
  await stage('schema', (idx) => new Map(idx.map((i) => [i, schemaStage(items[i].task, profile)])));

  // 2. AST semantics (one interpreter for the whole batch); its code facts also feed the cross-canonical sweep.
  let multiStatement = 0;
  let facts: Awaited<ReturnType<typeof astFacts>> = new Map();
  await stage('ast_semantics', async (idx) => {
    // Python through its own `ast`; JavaScript, TypeScript and Go on their tree-sitter trees (codeFacts.ts).
    const py = idx.filter((i) => items[i].task.tests.kind !== 'calls');
    const reqs = py.flatMap((i) => {
      const t = items[i].task;
      return [
        { id: `${i}:c`, kind: 'code' as const, code: t.canonical },
        ...t.distractors.map((d, j) => ({ id: `${i}:d${j}`, kind: 'code' as const, code: d.code })),
      ];
    });
    // The same question the build's pre-check asks (suiteFacts), so the two agree on what calls the function.
    const [codeFacts, pyTestFacts] = await Promise.all([astFacts(reqs), suiteFacts(py.map((i) => ({ suite: items[i].task.tests, target: items[i].task.function_name })))]);
    facts = codeFacts;
    const testFactsOf = idx.map((i) => {
      const suite = items[i].task.tests;
      return suite.kind === 'calls' ? callsTestFacts(suite) : pyTestFacts[py.indexOf(i)];
    });
    for (const i of idx) {
      const t = items[i].task;
      if (t.tests.kind !== 'calls') continue;
      const lang = t.tests.language;
      facts.set(`${i}:c`, await treeCodeFacts(lang, t.canonical));
      for (const [j, d] of t.distractors.entries()) facts.set(`${i}:d${j}`, await treeCodeFacts(lang, d.code));
    }
    const get = (id: string) => facts.get(id) as CodeFactsLike;
    const out = new Map<number, GateIssue[]>();
    for (const [k, i] of idx.entries()) {
      const t = items[i].task;
      const testFacts: TestFactLike[] = testFactsOf[k];
      const r = astStage(t, get(`${i}:c`), t.distractors.map((_, j) => get(`${i}:d${j}`)), testFacts, profile);
      multiStatement += r.multiStatementTests;
      out.set(i, r.issues);
    }
    return out;
  });

  // 3. canonical execution
  await stage('canonical_execution', async (idx) => {
    const results = await oracle.runMany(idx.map((i) => ({ code: items[i].task.canonical, suite: items[i].task.tests })), {
      onProgress: (d, n) => opts.onProgress?.('canonical_execution', d, n),
    });
    return new Map(idx.map((i, k) => [i, canonicalStage(results[k].outcomes, results[k].judged, profile)]));
  });

  // 4. distractor execution
  const distractorResults = new Map<number, ExecResult[]>();
  await stage('distractor_execution', async (idx) => {
    // A distractor must fail, by wrong output, under the gate's own limit (a run under another limit does not answer:
    // activities/exec/cache.ts).
    const reqs = idx.flatMap((i) => items[i].task.distractors.map((d) => ({ code: d.code, suite: items[i].task.tests })));
    const results = await oracle.runMany(reqs, { onProgress: (d, n) => opts.onProgress?.('distractor_execution', d, n) });
    const out = new Map<number, GateIssue[]>();
    let k = 0;
    for (const i of idx) {
      const mine = items[i].task.distractors.map(() => results[k++]);
      distractorResults.set(i, mine);
      out.set(i, distractorStage(mine.map((r) => r.outcomes), distinctSubsetsApply(profile, suiteSources(items[i].task.tests).length)));
    }
    return out;
  });

  // 5. corpus integrity (over what survived, so a rejected duplicate does not block its twin)
  await stage('corpus_integrity', (idx) => {
    const dup = batchIntegrity(idx.map((i) => items[i].task), profile.uniqueFunctionNames);
    return new Map(idx.map((i, k) => [i, dup.get(k) ?? []]));
  });

  const accepted = alive.map((i) => {
    const t = items[i].task;
    const rs = distractorResults.get(i) ?? [];
    return { ...t, distractors: t.distractors.map((d, j) => ({ ...d, failing_tests: failingSubset(rs[j].outcomes) })) };
  });

  // Sweep 1: distractor sanity (every distractor against its own tests; stage 4 ran exactly that).
  const sanity = { checked: 0, passing_all_own_tests: 0 };
  for (const i of alive) for (const r of distractorResults.get(i) ?? []) {
    sanity.checked++;
    if (r.passed) sanity.passing_all_own_tests++;
  }

  // Sweep 2: cross-canonical. Any accepted corpus item that defines another accepted query's function name
  // is run against that query's tests.
  const byName = new Map<string, number[]>();
  for (const i of alive) byName.set(items[i].task.function_name, [...(byName.get(items[i].task.function_name) ?? []), i]);
  const candidates: { from: number; which: string; code: string; to: number }[] = [];
  for (const i of alive) {
    const t = items[i].task;
    const codes = [['canonical', t.canonical, `${i}:c`], ...t.distractors.map((d, j) => [`distractors[${j}]`, d.code, `${i}:d${j}`])] as const;
    for (const [which, code, key] of codes) {
      for (const fn of (facts.get(key) as CodeFactsLike | undefined)?.top_level_functions ?? []) {
        // Code is run against another query's tests only in its own language (a Go snippet is no JavaScript).
        for (const to of byName.get(fn) ?? []) if (to !== i && taskLanguage(items[to].task) === taskLanguage(t)) candidates.push({ from: i, which, code, to });
      }
    }
  }
  const crossResults = await oracle.runMany(candidates.map((c) => ({ code: c.code, suite: items[c.to].task.tests })));
  const passing = candidates
    .map((c, k) => ({ corpus_task_id: items[c.from].task.task_id, which: c.which, query_task_id: items[c.to].task.task_id, function_name: items[c.to].task.function_name, passed: crossResults[k].passed }))
    .filter((h) => h.passed);

  return {
    profile: profile.name,
    total: items.length,
    accepted,
    rejections,
    stage_counts: counts,
    multi_statement_tests: multiStatement,
    sweeps: { distractor_sanity: sanity, cross_canonical: { candidates: candidates.length, passing } },
  };
}

