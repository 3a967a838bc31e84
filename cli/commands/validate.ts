import type { Command } from 'commander';
import { EXIT_CODES } from '../../activities/faults.ts';
import { relative } from 'node:path';
import { PROFILES, getProfile } from '../../core/gate/profiles.ts';
import { STAGES } from '../../core/gate/rules.ts';
import { loadTasks } from '../../activities/tasks/loadTasks.ts';
import { formatCount, stderrProgress } from '../progress.ts';
import { visibleLine } from '../../core/visibleText.ts';
import { checkInput, MAX_TIMEOUT_S, parseTimeout, usageError } from '../options.ts';
import { CliError } from '../errors.ts';

/** `--profile`: one of the gate profiles. */
export function parseProfile(v: string): string {
  if (!(v in PROFILES)) throw usageError(`--profile must be one of ${Object.keys(PROFILES).join(', ')}, got ${JSON.stringify(v)}`);
  return v;
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .addHelpText('after', '\nExample:\n  $ execretrieval validate data/samples/tasks.jsonl --profile check   # the repository\'s three sample tasks')
    .showHelpAfterError(false)
    .description('Run the five-stage validation gate (schema, AST semantics, canonical execution, distractor execution, corpus integrity) and the two integrity sweeps over tasks')
    .argument('<tasks>', 'a tasks .jsonl file, or a directory of them')
    .option('--profile <name>', 'bounds on distractors and tests: default (4 distractors, 7-10 tests), mbpp (1-4, 3), check (1-4, any), canonical (0-4, any)', parseProfile, 'default')
    .option('--timeout <seconds>', `per-suite timeout, a number of seconds in (0, ${MAX_TIMEOUT_S}]`, parseTimeout, 5)
    .option('--json', 'print the full report as JSON on stdout')
    .addHelpText('after', '\nExit code: 0 when every record is accepted, 1 when any record is rejected or unreadable, 2 for a bad argument.')
    .action(async (path: string, opts: { profile: string; timeout: number; json?: boolean }) => {
      const profile = getProfile(opts.profile);
      checkInput(path, 'tasks');
      const { items, errors } = loadTasks(path);
      if (!items.length && !errors.length) throw new CliError(`${path}: no records (an empty file, or a directory without .jsonl / .jsonl.gz files)`, EXIT_CODES.failed);
      // Imported when the command runs, not when it is registered: `--help` and usage errors need none of it.
      const [{ openOracle }, { runGate }] = await Promise.all([import('../../activities/exec/oracle.ts'), import('../../activities/gate/gate.ts')]);
      const oracle = await openOracle({ timeoutS: opts.timeout });
      const progress = stderrProgress();
      try {
        // Rate and ETA per gate stage: each stage has its own pace.
        let stage = '';
        let since = Date.now();
        const report = await runGate(items, oracle, profile, {
          onProgress: (s, d, n) => {
            if (s !== stage) [stage, since] = [s, Date.now()];
            progress(formatCount(s, d, n, Date.now() - since));
          },
        });
        progress.done();
        if (opts.json) {
          const { accepted, ...rest } = report;
          const sandbox_layers = (await oracle.layers?.()) ?? {};
          console.log(JSON.stringify({ ...rest, accepted: accepted.map((t) => t.task_id), unreadable: errors, sandbox_layers }, null, 2));
        } else {
          const rel = (f?: string) => (f ? relative(process.cwd(), f) : '?');
          console.log(`profile ${profile.name}: ${report.total} tasks read, ${report.accepted.length} accepted, ${report.total - report.accepted.length} rejected, ${errors.length} unreadable records`);
          for (const s of STAGES) {
            const c = report.stage_counts[s];
            console.log(`  ${String(STAGES.indexOf(s) + 1)}. ${s.padEnd(22)} entered ${String(c.entered).padStart(5)}  passed ${String(c.passed).padStart(5)}  rejected ${String(c.rejected).padStart(5)}`);
          }
          console.log(`  multi-statement tests: ${report.multi_statement_tests}`);
          const sw = report.sweeps;
          console.log(`  sweeps: distractor sanity ${sw.distractor_sanity.passing_all_own_tests}/${sw.distractor_sanity.checked} distractors pass all their own tests; cross-canonical ${sw.cross_canonical.passing.length} of ${sw.cross_canonical.candidates} name collisions pass another query's tests`);
          for (const e of errors) console.log(`${rel(e.file)}:${e.line} ${e.field ?? ''}${e.field ? ': ' : ''}${e.message}`);
          for (const r of report.rejections) console.log(visibleLine(`${rel(r.file)}:${r.line ?? '?'} ${r.task_id} [${r.stage_name}] ${r.code}${r.field ? ` ${r.field}` : ''}: ${r.message}`));
          for (const h of sw.cross_canonical.passing) console.log(`cross-canonical: ${h.corpus_task_id} ${h.which} passes the tests of ${h.query_task_id} (${h.function_name})`);
        }
        if (errors.length || report.rejections.length) process.exitCode = 1;
      } finally {
        await oracle.close();
      }
    });
}
