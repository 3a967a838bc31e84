/**
 * How many tests the sandbox's judge decides itself (parent-judged) on the three fixture sources (issue 25):
 * MBPP (its 974 tasks, when the data is present), the curated set (data/tasks/curated) and the check-program
 * fixture (test/fixtures/check-program, its programs split as `build` splits them). Each test is classified by
 * infra/runner/sandbox_plan.py exactly as the judge classifies it for the task's canonical.
 * Run: node --import tsx bench/judged-counts.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { importMbpp } from '../activities/importers/mbpp.ts';
import { importMappedJsonl } from '../activities/importers/mappedJsonl.ts';
import { importTaskFiles } from '../activities/importers/taskJsonl.ts';
import { PRESETS } from '../activities/importers/presets.ts';
import { splitCheckSuites } from '../activities/benchmark/checkSuites.ts';
import { projectRoot } from '../activities/paths.ts';
import { pythonExecutable } from '../activities/python/interpreter.ts';
import { mbppCandidates } from '../activities/benchmark/sources.ts';
import type { ImportedTask } from '../activities/importers/types.ts';

const COUNT = `
import json, sys
sys.path.insert(0, sys.argv[1])
import sandbox_plan
suites = json.load(sys.stdin)
total = parent = 0
for s in suites:
    shadowed = sandbox_plan.shadowed_names(s["code"], s.get("setup"))
    for t in s["tests"]:
        total += 1
        parent += not s.get("check") and sandbox_plan.plan_test(t, shadowed, sandbox_plan.setup_functions(s.get("setup"))) is not None
print(json.dumps({"tests": total, "parent": parent}))
`;

function count(name: string, tasks: readonly ImportedTask[]): void {
  const suites = tasks.flatMap(({ task }) => (task.tests.kind === 'calls' ? [] : task.tests.kind === 'asserts'
    ? [{ code: task.canonical, tests: task.tests.tests, setup: task.tests.setup ?? null }]
    : [{ code: task.canonical, tests: [task.tests.program], setup: null, check: true }]));
  const r = spawnSync(pythonExecutable(), ['-I', '-c', COUNT, join(projectRoot(), 'infra', 'runner')], { input: JSON.stringify(suites), encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(r.stderr);
  const c = JSON.parse(r.stdout) as { tests: number; parent: number };
  console.log(`${name.padEnd(14)} ${String(tasks.length).padStart(4)} tasks  ${String(c.tests).padStart(5)} tests  parent-judged ${c.parent} (${((100 * c.parent) / c.tests).toFixed(1)}%)`);
}

const mbpp = mbppCandidates().find((p) => existsSync(p));
if (mbpp) count('mbpp', (await importMbpp(mbpp)).tasks);
else console.log('mbpp           (data not found)');
count('curated', (importTaskFiles(join(projectRoot(), 'data', 'tasks', 'curated'))).tasks);
const check = (await importMappedJsonl(join(projectRoot(), 'test', 'fixtures', 'check-program', 'check-program.jsonl.gz'), PRESETS['check-program'], 'check-program')).tasks;
count('check-program', (await splitCheckSuites(check)).tasks);
