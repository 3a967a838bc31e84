/**
 * The one way to build a benchmark from tasks: runPipeline's build stage (`run --until build`), whose mutant
 * rounds run in batches on the exec queue. `execretrieval build` and `generate benchmark --generator mechanical`
 * are entries into it; this prints what the in-process `build` printed, read from the files the stage wrote.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CliError } from './errors.ts';
import { runPipelineFromCli } from './pipelineRun.ts';
import type { BuildManifest, BuildReport } from '../activities/benchmark/build.ts';
import { formatBreakdown, type TimeBreakdown } from '../core/timing/breakdown.ts';
import { visibleLine } from '../core/visibleText.ts';

export interface BuildStageSettings {
  runDir: string;
  source: string;
  seed: number;
  profile?: string;
  cap?: number;
  worker: boolean;
  queuePrefix?: string;
}

export async function runBuildStage(s: BuildStageSettings): Promise<{ out: string; manifest: BuildManifest; report: BuildReport }> {
  const t0 = Date.now();
  let result;
  try {
    // --rebuild: the command builds every time, as it always did (the caches make a rebuild cost no execution).
    result = await runPipelineFromCli({ id: basename(s.runDir), runDir: s.runDir, source: s.source, seed: s.seed, profile: s.profile, cap: s.cap, rebuild: true, until: 'build', worker: s.worker, queuePrefix: s.queuePrefix });
  } catch (err) {
    // The stage is the whole command here: its own message, not "run stopped at build: ...".
    if (err instanceof CliError) throw new CliError(err.message.replace(/^run stopped at build: /, ''), err.exitCode);
    throw err;
  }
  const out = join(s.runDir, 'benchmark');
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as BuildManifest;
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as BuildReport;
  const say = (m: string) => process.stderr.write(`[build ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}\n`);
  const kept = report.check_programs.kept;
  if (kept.length) say(`check programs kept whole (one test each): ${kept.map((k) => `${k.task_id} (${k.reason})`).join(', ')}`);
  // Absent in a report.json written before the drop existed.
  const noOps = report.noop_tests;
  if (noOps?.dropped) say(`no-op tests: ${noOps.dropped} tests no candidate can fail (assert True, ...) dropped from ${Object.keys(noOps.by_task).length} tasks (report.json noop_tests)`);
  for (const r of report.rejections) process.stderr.write(`${visibleLine(`rejected ${r.file ? `${r.file}:${r.line} ` : ''}${r.task_id ?? ''} [${r.stage}] ${r.code}${r.field ? ` ${r.field}` : ''}: ${r.message}`)}\n`);
  const stage = result.stages.build;
  const x = stage?.executions;
  // Each pass of the stage is one mutant round (its misses run on the exec queue, then the next round), not a
  // retry: "attempt" read as that many failures.
  say(`${stage?.rounds ?? 0} mutant round(s) (${stage?.resumed ?? 0} continued where the previous one was); executions on the exec queue: ${x ? `${x.run} run, ${x.cached} cached` : 'none'}; ${((Date.now() - t0) / 1000).toFixed(1)} s in all`);
  // Where the time went, as the stage's last attempt saw it (a continued attempt spans every round, the waits for the exec queue included).
  if (existsSync(join(out, 'timings.json'))) process.stderr.write(`${formatBreakdown(JSON.parse(readFileSync(join(out, 'timings.json'), 'utf8')) as TimeBreakdown)}\n`);
  console.log(JSON.stringify({ out, counts: manifest.counts, distractors_per_task: manifest.distractors_per_task, bug_types: manifest.bug_types, yield: report.yield.total }, null, 2));
  return { out, manifest, report };
}
