import type { Language } from '../../schemas/repoIndex.ts';
import type { GrammarName } from './treeSitter.ts';

/** Language by file extension; the structural chunker handles those with a grammar. */
export function languageOf(path: string): Language {
  if (/\.d\.[cm]?ts$|\.[cm]?ts$/.test(path)) return 'typescript';
  if (/\.tsx$/.test(path)) return 'tsx';
  if (/\.([cm]?js|jsx)$/.test(path)) return 'javascript';
  if (/\.pyi?$/.test(path)) return 'python';
  if (/\.(md|mdx)$/i.test(path)) return 'markdown';
  if (/\.json$/i.test(path)) return 'json';
  if (/\.ya?ml$/i.test(path)) return 'yaml';
  if (/\.toml$/i.test(path)) return 'toml';
  return 'text';
}

export function grammarOf(language: Language): GrammarName | null {
  return language === 'typescript' || language === 'tsx' || language === 'javascript' || language === 'python' ? language : null;
}
