import type { Language } from '../../schemas/repoIndex.ts';
import type { GrammarName } from './treeSitter.ts';

/**
 * One row per language: how a path is recognised, which tree-sitter grammar parses it, and (for the
 * languages the table-driven chunker handles, activities/repo/tablePieces.ts) which syntax-node types are
 * definitions, members, imports and comments, and how a test is marked. A new language is a row here.
 *
 * Node types are the grammar's own (`@repomix/tree-sitter-wasms` 0.1.17); each row's fixture in
 * test/repo/languages.test.ts shows what it yields.
 */
export type DefKind =
  /** A function or method; a receiver or qualified name (`func (c *T) M`, `void C::m()`) names its owner. */
  | 'function'
  /** A prototype or signature without a body (C prototypes, Rust trait method signatures). */
  | 'declaration'
  /** A type, constant or variable without members of its own. */
  | 'type'
  /** A class, struct, impl, trait, interface or enum: its members are named `Owner.member`; a long one is split per member. */
  | 'container'
  /** A container that only declares (an interface, a trait, a protocol): its chunks are `declaration`. */
  | 'interface'
  /** Members added to a type defined elsewhere (a Rust `impl`, a Swift `extension`): names `Type.member`, not `Type`. */
  | 'impl'
  /** A namespace, module or mod: what it holds is chunked as if at the top level, its names qualified. */
  | 'namespace'
  /** A preprocessor conditional (a header guard): what it holds is chunked as if at the top level. */
  | 'scope';

export interface LanguageRow {
  language: Language;
  /** Matched against the whole path. */
  path: RegExp;
  grammar: GrammarName | null;
  /** Table-driven rows (null for TS/JS/Python, which chunkStructural.ts handles with its own rules, and for text). */
  table: SyntaxTable | null;
}

export interface SyntaxTable {
  definitions: Readonly<Record<string, DefKind>>;
  /** Comments and attributes/annotations that stand before a definition and travel with it. */
  leading: ReadonlySet<string>;
  /** Imports, re-exports, `use`, `#include`, package clauses: a region of only these is an `import` chunk. */
  imports: ReadonlySet<string>;
  /** A call statement whose callee is one of these is an import (`require 'x'`). */
  importCalls?: ReadonlySet<string>;
  /** A definition whose leading text (attributes, annotations) matches is a test (`#[test]`, `@Test`). */
  testMark?: RegExp;
  /** A call statement whose callee is one of these is a test (`describe`, `it`, `test`). */
  testCalls?: ReadonlySet<string>;
  /** Node types that continue the definition before them (Dart's `function_body` after its signature). */
  continuation?: ReadonlySet<string>;
}

const set = (...xs: string[]) => new Set(xs);

const C_DEFS: Record<string, DefKind> = {
  function_definition: 'function',
  struct_specifier: 'container',
  union_specifier: 'container',
  enum_specifier: 'type',
  type_definition: 'type',
  preproc_def: 'type',
  preproc_function_def: 'function',
  preproc_ifdef: 'scope',
  preproc_if: 'scope',
  // `declaration` is a prototype or a global: tablePieces decides by its declarator.
  declaration: 'type',
};

const TABLES: Partial<Record<Language, SyntaxTable>> = {
  go: {
    definitions: { function_declaration: 'function', method_declaration: 'function', type_declaration: 'type', const_declaration: 'type', var_declaration: 'type' },
    leading: set('comment'),
    imports: set('import_declaration', 'package_clause'),
  },
  rust: {
    definitions: {
      function_item: 'function',
      function_signature_item: 'declaration',
      struct_item: 'type',
      enum_item: 'type',
      union_item: 'type',
      type_item: 'type',
      const_item: 'type',
      static_item: 'type',
      macro_definition: 'function',
      impl_item: 'impl',
      trait_item: 'interface',
      mod_item: 'namespace',
    },
    leading: set('line_comment', 'block_comment', 'attribute_item'),
    imports: set('use_declaration', 'extern_crate_declaration'),
    testMark: /#\[(?:[\w:]+::)?test\b|#\[cfg\(test\)\]/,
  },
  java: {
    definitions: {
      class_declaration: 'container',
      record_declaration: 'container',
      enum_declaration: 'container',
      interface_declaration: 'interface',
      annotation_type_declaration: 'interface',
      method_declaration: 'function',
      constructor_declaration: 'function',
      field_declaration: 'type',
    },
    leading: set('line_comment', 'block_comment'),
    imports: set('import_declaration', 'package_declaration'),
    testMark: /@(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b/,
  },
  c: { definitions: C_DEFS, leading: set('comment'), imports: set('preproc_include') },
  cpp: {
    definitions: { ...C_DEFS, class_specifier: 'container', namespace_definition: 'namespace', template_declaration: 'function', alias_declaration: 'type', field_declaration: 'type' },
    leading: set('comment'),
    imports: set('preproc_include', 'using_declaration'),
    testMark: /\bTEST(?:_F|_P)?\s*\(/,
  },
  csharp: {
    definitions: {
      namespace_declaration: 'namespace',
      class_declaration: 'container',
      struct_declaration: 'container',
      record_declaration: 'container',
      enum_declaration: 'container',
      interface_declaration: 'interface',
      method_declaration: 'function',
      constructor_declaration: 'function',
      property_declaration: 'type',
      field_declaration: 'type',
      delegate_declaration: 'type',
    },
    leading: set('comment'),
    imports: set('using_directive', 'file_scoped_namespace_declaration'),
    testMark: /\[(?:Test|TestCase|Fact|Theory|TestMethod)\b/,
  },
  ruby: {
    definitions: { module: 'namespace', class: 'container', method: 'function', singleton_method: 'function', assignment: 'type' },
    leading: set('comment'),
    imports: set(),
    importCalls: set('require', 'require_relative', 'load'),
    testCalls: set('describe', 'context', 'it', 'specify', 'shared_examples', 'test'),
  },
  php: {
    definitions: {
      namespace_definition: 'namespace',
      class_declaration: 'container',
      trait_declaration: 'container',
      enum_declaration: 'container',
      interface_declaration: 'interface',
      function_definition: 'function',
      method_declaration: 'function',
      const_declaration: 'type',
      property_declaration: 'type',
    },
    leading: set('comment'),
    imports: set('namespace_use_declaration', 'namespace_definition', 'php_tag'),
  },
  swift: {
    definitions: {
      class_declaration: 'container',
      protocol_declaration: 'interface',
      function_declaration: 'function',
      init_declaration: 'function',
      protocol_function_declaration: 'declaration',
      property_declaration: 'type',
      typealias_declaration: 'type',
    },
    leading: set('comment', 'multiline_comment'),
    imports: set('import_declaration'),
  },
  dart: {
    definitions: {
      class_definition: 'container',
      mixin_declaration: 'container',
      extension_declaration: 'container',
      enum_declaration: 'container',
      function_signature: 'function',
      method_signature: 'function',
      type_alias: 'type',
    },
    leading: set('comment', 'documentation_comment'),
    imports: set('import_or_export', 'library_name', 'part_directive', 'part_of_directive'),
    testCalls: set('test', 'group', 'testWidgets'),
    continuation: set('function_body'),
  },
};

/** Every language the index knows, first match wins (`.d.ts` before `.ts`, `.tsx` before `.ts`). */
export const LANGUAGE_TABLE: readonly LanguageRow[] = [
  { language: 'typescript', path: /\.d\.[cm]?ts$|\.[cm]?ts$/, grammar: 'typescript', table: null },
  { language: 'tsx', path: /\.tsx$/, grammar: 'tsx', table: null },
  { language: 'javascript', path: /\.([cm]?js|jsx)$/, grammar: 'javascript', table: null },
  { language: 'python', path: /\.pyi?$/, grammar: 'python', table: null },
  { language: 'go', path: /\.go$/, grammar: 'go', table: TABLES.go! },
  { language: 'rust', path: /\.rs$/, grammar: 'rust', table: TABLES.rust! },
  { language: 'java', path: /\.java$/, grammar: 'java', table: TABLES.java! },
  { language: 'c', path: /\.[ch]$/, grammar: 'c', table: TABLES.c! },
  { language: 'cpp', path: /\.(cc|cpp|cxx|c\+\+|hh|hpp|hxx|h\+\+|ipp|tpp)$/, grammar: 'cpp', table: TABLES.cpp! },
  { language: 'csharp', path: /\.cs$/, grammar: 'c_sharp', table: TABLES.csharp! },
  { language: 'ruby', path: /\.rb$|(^|\/)(Rakefile|Gemfile)$/, grammar: 'ruby', table: TABLES.ruby! },
  { language: 'php', path: /\.php$/, grammar: 'php', table: TABLES.php! },
  { language: 'swift', path: /\.swift$/, grammar: 'swift', table: TABLES.swift! },
  { language: 'dart', path: /\.dart$/, grammar: 'dart', table: TABLES.dart! },
  { language: 'markdown', path: /\.(md|mdx)$/i, grammar: null, table: null },
  { language: 'json', path: /\.json$/i, grammar: null, table: null },
  { language: 'yaml', path: /\.ya?ml$/i, grammar: null, table: null },
  { language: 'toml', path: /\.toml$/i, grammar: null, table: null },
];

const TEXT_ROW: LanguageRow = { language: 'text', path: /$/, grammar: null, table: null };

export function languageRow(path: string): LanguageRow {
  return LANGUAGE_TABLE.find((r) => r.path.test(path)) ?? TEXT_ROW;
}

/** Language by file extension; the structural chunker handles those with a grammar. */
export function languageOf(path: string): Language {
  return languageRow(path).language;
}

export function grammarOf(language: Language): GrammarName | null {
  return LANGUAGE_TABLE.find((r) => r.language === language)?.grammar ?? null;
}

export function syntaxTableOf(language: Language): SyntaxTable | null {
  return LANGUAGE_TABLE.find((r) => r.language === language)?.table ?? null;
}

/**
 * Languages that are code but have no grammar here: indexed as plain text only when the user opts in
 * (`repo index --allow-text-chunks`), never silently. Matched by extension for the message.
 */
export const UNPARSED_CODE: readonly { language: string; path: RegExp }[] = [
  { language: 'kotlin', path: /\.kts?$/ },
  { language: 'scala', path: /\.(scala|sc)$/ },
  { language: 'elixir', path: /\.exs?$/ },
  { language: 'erlang', path: /\.[eh]rl$/ },
  { language: 'haskell', path: /\.hs$/ },
  { language: 'ocaml', path: /\.mli?$/ },
  { language: 'clojure', path: /\.clj[sc]?$/ },
  { language: 'lua', path: /\.lua$/ },
  { language: 'perl', path: /\.p[lm]$/ },
  { language: 'r', path: /\.[rR]$/ },
  { language: 'julia', path: /\.jl$/ },
  { language: 'zig', path: /\.zig$/ },
  { language: 'nim', path: /\.nim$/ },
  { language: 'objective-c', path: /\.mm?$/ },
  { language: 'fsharp', path: /\.fs[ix]?$/ },
  { language: 'vb', path: /\.vb$/ },
  { language: 'groovy', path: /\.groovy$/ },
  { language: 'shell', path: /\.(sh|bash|zsh)$/ },
  { language: 'sql', path: /\.sql$/ },
  { language: 'solidity', path: /\.sol$/ },
  { language: 'vue', path: /\.vue$/ },
  { language: 'svelte', path: /\.svelte$/ },
];

export function unparsedCodeLanguage(path: string): string | null {
  return UNPARSED_CODE.find((r) => r.path.test(path))?.language ?? null;
}
