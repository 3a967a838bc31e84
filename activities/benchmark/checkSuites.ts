import type { ImportedTask } from '../importers/types.ts';
import { checkProgramFacts } from '../python/astFacts.ts';
import { planCheckSplit } from '../../core/suites/splitCheck.ts';

/** What the build did with each check(candidate) suite (report.json `check_programs`). */
export interface CheckSuiteReport {
  /** Task ids whose program became one test per top-level assert. */
  split: string[];
  /** Tasks that kept the program form (one test), with the reason splitting was unsafe. */
  kept: { task_id: string; reason: string }[];
}

/**
 * Every `check` suite split into an assert suite where that is safe (core/suites/splitCheck.ts), so the gate's
 * rules and the failing-subset selection see one outcome per assert. Other tasks pass through unchanged.
 */
export async function splitCheckSuites(tasks: readonly ImportedTask[]): Promise<{ tasks: ImportedTask[]; report: CheckSuiteReport }> {
  const checks = tasks.flatMap((it, i) => (it.task.tests.kind === 'check' ? [i] : []));
  const facts = await checkProgramFacts(checks.map((i) => (tasks[i].task.tests as { program: string }).program));
  const out = [...tasks];
  const report: CheckSuiteReport = { split: [], kept: [] };
  checks.forEach((i, k) => {
    const { task } = tasks[i];
    if (task.tests.kind !== 'check') return;
    const plan = planCheckSplit(task.tests.program, task.tests.entry_point, facts[k]);
    if (plan.split) {
      out[i] = { ...tasks[i], task: { ...task, tests: plan.suite } };
      report.split.push(task.task_id);
    } else report.kept.push({ task_id: task.task_id, reason: plan.reason });
  });
  return { tasks: out, report };
}
