import { CliError } from '../errors.ts';
import { checkInput } from '../options.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import { importMbpp } from '../../activities/importers/mbpp.ts';
import { importMultiplE, MULTIPL_E_FILES } from '../../activities/importers/multiplE.ts';
import { DEFAULT_MAPPING, importMappedJsonl, parseMapping, type FieldMapping } from '../../activities/importers/mappedJsonl.ts';
import { PRESETS, type PresetName } from '../../activities/importers/presets.ts';
import { importRelease, toRelease } from '../../activities/importers/release.ts';
import { importTaskFiles } from '../../activities/importers/taskJsonl.ts';
import { formatRejection, type ImportResult } from '../../activities/importers/types.ts';
import { writeJsonlAtomic } from '../../activities/storage/atomic.ts';

/** `12 removed from the code, 1 kept (...)`: what happened to the query's docstring (metadata.query_docstring); '' when no query came from one. */
export function queryDocstringCounts(tasks: readonly { metadata?: Record<string, unknown> }[]): string {
  const n = { removed: 0, kept: 0, not_in_code: 0 };
  const notes = new Set<string>();
  for (const t of tasks) {
    const v = t.metadata?.query_docstring;
    if (v === 'removed' || v === 'kept' || v === 'not_in_code') n[v]++;
    if (v === 'kept' && typeof t.metadata?.query_docstring_note === 'string') notes.add(t.metadata.query_docstring_note);
  }
  if (!n.removed && !n.kept && !n.not_in_code) return '';
  return [
    `${n.removed} removed from the code`,
    ...(n.kept ? [`${n.kept} kept (${[...notes].join('; ')})`] : []),
    ...(n.not_in_code ? [`${n.not_in_code} not in the code`] : []),
  ].join(', ');
}

const FORMATS = {
  mbpp: (input: string) => importMbpp(input),
  /** Any JSONL (or .jsonl.gz) with --preset and/or --map target=spec pairs. */
  jsonl: (input: string, mapping: FieldMapping, dataset: string, keepDocstring = false) => importMappedJsonl(input, mapping, dataset, { keepDocstring }),
  /** MultiPL-E's per-language check programs (js, ts, go_test.go rows: activities/importers/multiplE.ts): JSON lines, or its evaluator's .results.json files (a file or a directory). */
  'multipl-e': (input: string) => importMultiplE(input),
  /** The paper's release format: a directory holding queries.jsonl and corpus.jsonl. */
  release: (input: string) => Promise.resolve(importRelease(join(input, 'queries.jsonl'), join(input, 'corpus.jsonl'))),
  /** The project's own task schema (a file or a directory of *.jsonl). */
  tasks: (input: string) => Promise.resolve(importTaskFiles(input)),
} as const;
type Format = keyof typeof FORMATS;

/** The preset's mapping (or the default one), then each --map target=spec on top; every spec is checked here. */
export function mappingFrom(preset: string | undefined, pairs: readonly string[]): FieldMapping {
  if (preset !== undefined && !(preset in PRESETS)) throw new CliError(`unknown --preset "${preset}" (known: ${Object.keys(PRESETS).join(', ')})`, EXIT_CODES.usage);
  const m: Record<string, string> = { ...(preset ? PRESETS[preset as PresetName] : DEFAULT_MAPPING) };
  for (const p of pairs) {
    const eq = p.indexOf('=');
    const k = eq > 0 ? p.slice(0, eq) : '';
    const v = eq > 0 ? p.slice(eq + 1) : '';
    if (!k || !v || !(k in DEFAULT_MAPPING)) throw new CliError(`--map ${p}: expected <target>=<spec> with target one of ${Object.keys(DEFAULT_MAPPING).join(', ')}`, EXIT_CODES.usage);
    m[k] = v;
  }
  parseMapping(m as unknown as FieldMapping);
  return m as unknown as FieldMapping;
}

/** `3 records rejected: 2 CODE_DOES_NOT_PARSE, 1 INVALID_JSON` (most frequent reason first). */
export function rejectionSummary(rejections: ImportResult['rejections']): string {
  const by = new Map<string, number>();
  for (const r of rejections) by.set(r.code, (by.get(r.code) ?? 0) + 1);
  const parts = [...by].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c, n]) => `${n} ${c}`);
  return `${rejections.length} records rejected${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .addHelpText('after', '\nExamples:\n  $ execretrieval import tasks data/samples/tasks.jsonl --to release --out release   # queries.jsonl + corpus.jsonl\n  $ execretrieval import multipl-e data/samples/multipl-e.jsonl --out multipl-e-tasks.jsonl   # MultiPL-E check programs (JS, TS, Go) as calls suites')
    .description('Convert tasks to the project task schema (JSONL) or export them to the release format (queries.jsonl + corpus.jsonl)')
    .argument('<format>', `input format: ${Object.keys(FORMATS).join(' | ')}`)
    .argument('<input>', 'input file, .jsonl or .jsonl.gz (a directory for release, a file or directory for tasks; for multipl-e also .json / .results.json(.gz) files, or a directory of them)')
    .requiredOption('--out <path>', 'tasks .jsonl to write, or a directory with --to release')
    .option('--to <kind>', 'tasks (project schema) or release (queries.jsonl + corpus.jsonl)', 'tasks')
    .option('--preset <name>', `jsonl only: field mapping of a common format (${Object.keys(PRESETS).join(', ')}); --map overrides single fields`)
    .option('--map <target=spec...>', "jsonl only: how query, code, tests, id, function_name, entry_point, setup, domain are built: a field (dotted paths allowed), a template ('code={prompt}{canonical_solution}') or docstring(...) ('query=docstring({prompt})')", [])
    .option('--dataset <name>', 'jsonl only: source name recorded in each task (default: the preset, else jsonl)')
    .option('--keep-docstring', 'jsonl only: when the query is a docstring of the code (query=docstring(...), as in --preset check-program), keep it in the stored code (default: removed, so no snippet carries the query word for word; docs/check-programs.md)')
    .option('--json', 'print what was written and every rejected record as JSON on stdout')
    .action(async (format: string, input: string, opts: { out: string; to: string; preset?: string; map: string[]; dataset?: string; keepDocstring?: boolean; json?: boolean }) => {
      if (!(format in FORMATS)) throw new CliError(`unknown format "${format}" (known: ${Object.keys(FORMATS).join(', ')})`, EXIT_CODES.usage);
      if (opts.to !== 'tasks' && opts.to !== 'release') throw new CliError(`--to must be tasks or release, got "${opts.to}"`, EXIT_CODES.usage);
      const f = format as Format;
      checkInput(input, 'input', ...(f === 'multipl-e' ? [MULTIPL_E_FILES] : []));
      if (f !== 'jsonl' && (opts.preset || opts.map.length || opts.keepDocstring)) throw new CliError(`--preset, --map and --keep-docstring apply to the jsonl format only (got ${f})`, EXIT_CODES.usage);
      const result: ImportResult = f === 'jsonl'
        ? await FORMATS.jsonl(resolve(input), mappingFrom(opts.preset, opts.map), opts.dataset ?? opts.preset ?? 'jsonl', opts.keepDocstring)
        : await FORMATS[f](resolve(input));
      const tasks = result.tasks.map((t) => t.task);
      if (!tasks.length && !result.rejections.length) throw new CliError(`${input}: no records (an empty file, or a directory without .jsonl / .jsonl.gz files): nothing written`, EXIT_CODES.failed);
      if (opts.to === 'release') {
        const { queries, corpus } = toRelease(tasks);
        writeJsonlAtomic(join(opts.out, 'queries.jsonl'), queries);
        writeJsonlAtomic(join(opts.out, 'corpus.jsonl'), corpus);
      } else {
        writeJsonlAtomic(opts.out, tasks);
      }
      for (const r of result.rejections) process.stderr.write(`rejected ${formatRejection(r)}\n`);
      process.stderr.write(`${tasks.length} tasks written to ${opts.out}, ${rejectionSummary(result.rejections)}\n`);
      const docs = queryDocstringCounts(tasks);
      if (docs) process.stderr.write(`query docstrings: ${docs}\n`);
      if (opts.json) console.log(JSON.stringify({ out: opts.out, to: opts.to, tasks: tasks.length, rejections: result.rejections }, null, 2));
      if (result.rejections.length) process.exitCode = 1;
    });
}
