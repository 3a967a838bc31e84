import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

/**
 * web-tree-sitter with grammars from npm. `tree-sitter-wasms` 0.1.13 ships grammars built by
 * tree-sitter-cli 0.20, whose wasm lacks the `dylink.0` section web-tree-sitter 0.27 requires (loading
 * fails in getDylinkMetadata); `@repomix/tree-sitter-wasms` 0.1.17 is built by tree-sitter-cli 0.26 and
 * loads (ABI 14 for TypeScript/TSX, 15 for JavaScript/Python).
 */
export const GRAMMAR_PACKAGE = '@repomix/tree-sitter-wasms';
export type GrammarName = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java' | 'c' | 'cpp' | 'c_sharp' | 'ruby' | 'php' | 'swift' | 'dart';

const require = createRequire(import.meta.url);
let init: Promise<void> | null = null;
const languages = new Map<GrammarName, Promise<Language>>();
// One parser per grammar, reused: chunking is sequential, and a Parser is cheap to keep but not to create.
const parsers = new Map<GrammarName, Parser>();

function grammarPath(name: GrammarName): string {
  const pkg = dirname(require.resolve(`${GRAMMAR_PACKAGE}/package.json`));
  return join(pkg, 'out', `tree-sitter-${name}.wasm`);
}

export async function parserFor(name: GrammarName): Promise<Parser> {
  init ??= Parser.init();
  await init;
  let lang = languages.get(name);
  if (!lang) languages.set(name, (lang = Language.load(grammarPath(name))));
  const loaded = await lang;
  let parser = parsers.get(name);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(loaded);
    parsers.set(name, parser);
  }
  return parser;
}

export function grammarVersions(): Record<string, string> {
  // web-tree-sitter's `exports` hides its package.json: read it beside the resolved entry point.
  const v = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  return {
    'web-tree-sitter': v(dirname(require.resolve('web-tree-sitter'))),
    [GRAMMAR_PACKAGE]: v(dirname(require.resolve(`${GRAMMAR_PACKAGE}/package.json`))),
  };
}
