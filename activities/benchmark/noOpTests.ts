import type { ImportedTask } from '../importers/types.ts';
import { suiteFacts } from '../python/astFacts.ts';

/** Tests the build dropped because no candidate can fail them (report.json `noop_tests`). */
export interface NoOpTestReport {
  /** Tests dropped in all. */
  dropped: number;
  /** Per task id: how many of its tests were dropped (tasks with none are not listed). */
  by_task: Record<string, number>;
}

/**
 * Drops every test that is a lone `assert <always true>` (`assert True, "..."`, `assert 1`, `assert "x"`; decided
 * by Python's ast, infra/python/ast_facts.py `no_op`) from the assert suites, before the pre-check and the gate.
 * Such a test passes for the canonical and for every twin, so it measures nothing; kept, it would make the gate
 * reject the whole task (TEST_DOES_NOT_CALL: it does not call the function), as it did for 35 of 163 tasks of a
 * public check-program benchmark (issue 28). A suite made only of such tests is left as it is: with nothing that
 * calls the function, the pre-check rejects it for that, which is the truth about it.
 * `check` suites kept in program form keep their no-op lines (they run inside the one program and cost nothing).
 */
export async function dropNoOpTests(tasks: readonly ImportedTask[]): Promise<{ tasks: ImportedTask[]; report: NoOpTestReport }> {
  const idx = tasks.flatMap((it, i) => (it.task.tests.kind === 'asserts' ? [i] : []));
  const facts = await suiteFacts(idx.map((i) => ({ suite: tasks[i].task.tests, target: tasks[i].task.function_name })));
  const out = [...tasks];
  const report: NoOpTestReport = { dropped: 0, by_task: {} };
  idx.forEach((i, k) => {
    const { task } = tasks[i];
    if (task.tests.kind !== 'asserts') return;
    const keep = task.tests.tests.filter((_, j) => !facts[k][j].no_op);
    const n = task.tests.tests.length - keep.length;
    if (n === 0 || keep.length === 0) return;
    out[i] = { ...tasks[i], task: { ...task, tests: { ...task.tests, tests: keep } } };
    report.dropped += n;
    report.by_task[task.task_id] = n;
  });
  return { tasks: out, report };
}
