import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { jsonlFiles, projectRoot } from '../paths.ts';
import { FUNCTIONAL_LANGUAGES, functionalLanguage } from '../../core/languages/functional.ts';
import { taskLanguage, type Language } from '../../schemas/task.ts';
import { importMbpp } from '../importers/mbpp.ts';
import { importRelease } from '../importers/release.ts';
import { importTaskFiles } from '../importers/taskJsonl.ts';
import type { ImportResult } from '../importers/types.ts';

export interface ResolvedSource {
  /** `mbpp`, `curated`, `release` or `tasks`. */
  kind: 'mbpp' | 'curated' | 'release' | 'tasks';
  path: string;
  /** Gate profile the source is built with by default. */
  profile: 'mbpp' | 'default';
  /**
   * `curated:<language>[,<language>...]` (the CLI's `--source curated --language ...`): each language's curated
   * folder (core/languages/functional.ts), only that language's tasks kept from it. Absent: every task of `path`.
   */
  languages?: Language[];
  /** Every folder read (`path` is the first). */
  paths?: string[];
}

/** Where MBPP is looked for: $EXECRETRIEVAL_MBPP, then data/mbpp/, then the workplace's shared copy. */
export function mbppCandidates(): string[] {
  const root = projectRoot();
  return [process.env.EXECRETRIEVAL_MBPP, join(root, 'data', 'mbpp', 'mbpp.jsonl'), join(root, '..', 'shared', 'data', 'mbpp', 'mbpp.jsonl')]
    .filter((p): p is string => Boolean(p));
}

/** `mbpp`, `curated`, or a path: a release directory (queries.jsonl + corpus.jsonl) or task JSONL (file or directory). */
export function resolveSource(source: string): ResolvedSource {
  if (source === 'mbpp') {
    const found = mbppCandidates().find((p) => existsSync(p));
    if (!found) throw new Error(`MBPP not found; looked at: ${mbppCandidates().join(', ')} (set EXECRETRIEVAL_MBPP)`);
    return { kind: 'mbpp', path: found, profile: 'mbpp' };
  }
  if (source === 'curated') return { kind: 'curated', path: join(projectRoot(), 'data', 'tasks', 'curated'), profile: 'default' };
  if (source.startsWith('curated:')) {
    const languages = [...new Set(source.slice('curated:'.length).split(','))].map((l) => functionalLanguage(l).id);
    const paths = [...new Set(languages.map((l) => join(projectRoot(), FUNCTIONAL_LANGUAGES[l].curated)))];
    const absent = paths.find((p) => !existsSync(p));
    if (absent) throw new Error(`no curated tasks for ${languages.join(', ')}: ${absent} does not exist`);
    return { kind: 'curated', path: paths[0], paths, languages, profile: 'default' };
  }
  const path = resolve(source);
  if (!existsSync(path)) throw new Error(`source "${source}" is neither mbpp, curated nor an existing path`);
  if (statSync(path).isDirectory() && existsSync(join(path, 'queries.jsonl')) && existsSync(join(path, 'corpus.jsonl'))) {
    return { kind: 'release', path, profile: 'default' };
  }
  return { kind: 'tasks', path, profile: 'default' };
}

export async function loadSource(src: ResolvedSource): Promise<ImportResult> {
  switch (src.kind) {
    case 'mbpp':
      return importMbpp(src.path);
    case 'release':
      return importRelease(join(src.path, 'queries.jsonl'), join(src.path, 'corpus.jsonl'));
    case 'curated':
    case 'tasks': {
      if (!src.languages) return importTaskFiles(src.path);
      const wanted = new Set<string>(src.languages);
      const parts = (src.paths ?? [src.path]).map((p) => importTaskFiles(p));
      return {
        tasks: parts.flatMap((r) => r.tasks).filter(({ task }) => wanted.has(taskLanguage(task))),
        rejections: parts.flatMap((r) => r.rejections),
      };
    }
  }
}

/** Every JSONL file a source reads, for the manifest. */
export function sourceFiles(src: ResolvedSource): string[] {
  return (src.paths ?? [src.path]).flatMap((p) => jsonlFiles(p));
}
