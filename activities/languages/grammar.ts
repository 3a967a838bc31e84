import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { GRAMMAR_PACKAGE, parserFor } from '../repo/treeSitter.ts';
import type { FunctionalLanguage } from '../../core/languages/functional.ts';

export type { Node };
const require = createRequire(import.meta.url);
let go: Promise<Parser> | null = null;

/**
 * A parser for a functional language's grammar: repository chunking's loader (activities/repo/treeSitter.ts) for
 * the grammars it knows, and Go from the same package here (that loader's names are the chunker's languages).
 */
export async function parserForGrammar(grammar: FunctionalLanguage['grammar']): Promise<Parser> {
  if (grammar !== 'go') return parserFor(grammar);
  go ??= (async () => {
    await parserFor('javascript'); // Parser.init() once, through the shared loader
    const lang = await Language.load(join(dirname(require.resolve(`${GRAMMAR_PACKAGE}/package.json`)), 'out', 'tree-sitter-go.wasm'));
    const parser = new Parser();
    parser.setLanguage(lang);
    return parser;
  })();
  return go;
}
