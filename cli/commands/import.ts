import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import { importMbpp } from '../../activities/importers/mbpp.ts';
import { DEFAULT_MAPPING, importMappedJsonl, type FieldMapping } from '../../activities/importers/mappedJsonl.ts';
import { importRelease, toRelease } from '../../activities/importers/release.ts';
import { importTaskFiles } from '../../activities/importers/taskJsonl.ts';
import { formatRejection, type ImportResult } from '../../activities/importers/types.ts';
import { writeJsonlAtomic } from '../../activities/storage/atomic.ts';

const FORMATS = {
  mbpp: (input: string) => importMbpp(input),
  /** Any JSONL with --map field=path pairs. */
  jsonl: (input: string, mapping: FieldMapping, dataset: string) => importMappedJsonl(input, mapping, dataset),
  /** The paper's release format: a directory holding queries.jsonl and corpus.jsonl. */
  release: (input: string) => Promise.resolve(importRelease(join(input, 'queries.jsonl'), join(input, 'corpus.jsonl'))),
  /** The project's own task schema (a file or a directory of *.jsonl). */
  tasks: (input: string) => Promise.resolve(importTaskFiles(input)),
} as const;
type Format = keyof typeof FORMATS;

function parseMapping(pairs: string[]): FieldMapping {
  const m: Record<string, string> = { ...DEFAULT_MAPPING };
  for (const p of pairs) {
    const [k, v] = p.split('=');
    if (!k || !v || !(k in DEFAULT_MAPPING)) throw new Error(`--map ${p}: expected <field>=<path> with field one of ${Object.keys(DEFAULT_MAPPING).join(', ')}`);
    m[k] = v;
  }
  return m as unknown as FieldMapping;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('Convert tasks to the project task schema (JSONL) or export them to the release format (queries.jsonl + corpus.jsonl)')
    .argument('<format>', `input format: ${Object.keys(FORMATS).join(' | ')}`)
    .argument('<input>', 'input file (a directory for release, a file or directory for tasks)')
    .requiredOption('--out <path>', 'tasks .jsonl to write, or a directory with --to release')
    .option('--to <kind>', 'tasks (project schema) or release (queries.jsonl + corpus.jsonl)', 'tasks')
    .option('--map <field=path...>', 'jsonl only: which field holds query, code, tests, id, function_name, entry_point, setup, domain (dotted paths allowed)', [])
    .option('--dataset <name>', 'jsonl only: source name recorded in each task', 'jsonl')
    .action(async (format: string, input: string, opts: { out: string; to: string; map: string[]; dataset: string }) => {
      if (!(format in FORMATS)) throw new Error(`unknown format "${format}" (known: ${Object.keys(FORMATS).join(', ')})`);
      if (opts.to !== 'tasks' && opts.to !== 'release') throw new Error(`--to must be tasks or release, got "${opts.to}"`);
      const f = format as Format;
      const result: ImportResult = f === 'jsonl' ? await FORMATS.jsonl(resolve(input), parseMapping(opts.map), opts.dataset) : await FORMATS[f](resolve(input));
      const tasks = result.tasks.map((t) => t.task);
      if (opts.to === 'release') {
        const { queries, corpus } = toRelease(tasks);
        writeJsonlAtomic(join(opts.out, 'queries.jsonl'), queries);
        writeJsonlAtomic(join(opts.out, 'corpus.jsonl'), corpus);
      } else {
        writeJsonlAtomic(opts.out, tasks);
      }
      for (const r of result.rejections) process.stderr.write(`rejected ${formatRejection(r)}\n`);
      process.stderr.write(`${tasks.length} tasks written to ${opts.out}, ${result.rejections.length} records rejected\n`);
      if (result.rejections.length) process.exitCode = 1;
    });
}
