/**
 * How many tests the judge runs (judge-run: expected values computed in the judge, the candidate a remote function)
 * and how many are child-judged (run whole next to the candidate: a value that cannot cross, or a call of a
 * candidate function named like a builtin), on the three fixture sources (issues 25, 36): MBPP (its 974 tasks, when
 * the data is present), the curated set (data/tasks/curated; curated-javascript and curated-go where built) and the check-program fixture
 * (test/fixtures/check-program, its programs split as `build` splits them). Since issue 36 a test's side is decided
 * as it runs, so each task's canonical is run through the oracle (no cache) and its `judged` list counted; the
 * accepted count (every test passed) is printed too, to compare accepted sets across versions.
 * Run: node --import tsx bench/judged-counts.ts
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { importMbpp } from '../activities/importers/mbpp.ts';
import { importMappedJsonl } from '../activities/importers/mappedJsonl.ts';
import { importTaskFiles } from '../activities/importers/taskJsonl.ts';
import { PRESETS } from '../activities/importers/presets.ts';
import { splitCheckSuites } from '../activities/benchmark/checkSuites.ts';
import { projectRoot } from '../activities/paths.ts';
import { mbppCandidates } from '../activities/benchmark/sources.ts';
import { openOracle } from '../activities/exec/oracle.ts';
import type { ImportedTask } from '../activities/importers/types.ts';

const oracle = await openOracle({ cachePath: null });

async function count(name: string, tasks: readonly ImportedTask[]): Promise<void> {
  const results = await oracle.runMany(tasks.map(({ task }) => ({ code: task.canonical, suite: task.tests })));
  let tests = 0;
  let parent = 0;
  const childTasks: string[] = [];
  for (const [i, r] of results.entries()) {
    tests += r.outcomes.length;
    const p = (r.judged ?? []).filter((j) => j === 'parent').length;
    parent += p;
    if (p < r.outcomes.length) childTasks.push(tasks[i].task.task_id);
  }
  const accepted = results.filter((r) => r.passed).length;
  const where = childTasks.length ? ` (child-judged in ${childTasks.slice(0, 6).join(', ')}${childTasks.length > 6 ? ', ...' : ''})` : '';
  console.log(`${name.padEnd(18)} ${String(tasks.length).padStart(4)} tasks  ${String(tests).padStart(5)} tests  judge-run ${parent} (${((100 * parent) / tests).toFixed(1)}%), child-judged ${tests - parent}; canonicals accepted ${accepted}${where}`);
}

try {
  const mbpp = mbppCandidates().find((p) => existsSync(p));
  if (mbpp) await count('mbpp', (await importMbpp(mbpp)).tasks);
  else console.log('mbpp               (data not found)');
  await count('curated', importTaskFiles(join(projectRoot(), 'data', 'tasks', 'curated')).tasks);
  // The other languages' curated sets (calls suites: every test is data, judged outside the candidate), where built.
  for (const lang of ['javascript', 'go']) {
    const dir = join(projectRoot(), 'data', 'tasks', `curated-${lang}`);
    const tasks = existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.jsonl')) ? importTaskFiles(dir).tasks : [];
    if (tasks.length) await count(`curated-${lang}`, tasks);
  }
  const check = (await importMappedJsonl(join(projectRoot(), 'test', 'fixtures', 'check-program', 'check-program.jsonl.gz'), PRESETS['check-program'], 'check-program')).tasks;
  await count('check-program', (await splitCheckSuites(check)).tasks);
} finally {
  await oracle.close();
}
