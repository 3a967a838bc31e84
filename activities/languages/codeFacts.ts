import type { CodeFactsLike, TestFactLike } from '../../core/gate/rules.ts';
import { FUNCTIONAL_LANGUAGES } from '../../core/languages/functional.ts';
import type { CallsSuite, CallsLanguage } from '../../schemas/exec.ts';
import { parserForGrammar } from './grammar.ts';

/**
 * The gate's AST facts for a JavaScript, TypeScript or Go snippet, from its tree-sitter tree (Python's come from
 * its own `ast`, activities/python/astFacts.ts): does it parse, and which functions it defines at the top level.
 */
export async function treeCodeFacts(language: CallsLanguage, code: string): Promise<CodeFactsLike> {
  const row = FUNCTIONAL_LANGUAGES[language];
  const parser = await parserForGrammar(row.grammar);
  const prefix = language === 'go' && !/^\s*package\s/.test(code) ? 'package main\n' : '';
  const tree = parser.parse(prefix + code);
  if (!tree) return { parses: false, syntax_error: 'the parser gave no tree', top_level_functions: [] };
  try {
    const root = tree.rootNode;
    if (root.hasError) {
      let bad = root.descendantsOfType(['ERROR'])[0] ?? null;
      if (!bad) {
        const stack = [root];
        while (stack.length && !bad) {
          const n = stack.pop()!;
          if (n.isMissing) bad = n;
          for (const c of n.children) if (c) stack.push(c);
        }
      }
      const line = bad ? bad.startPosition.row + 1 - (prefix ? 1 : 0) : 0;
      return { parses: false, syntax_error: `syntax error at line ${line}`, top_level_functions: [] };
    }
    const nodes = row.mutation;
    const names: string[] = [];
    for (const top of root.namedChildren) {
      if (!top) continue;
      const decl = top.type === 'export_statement' ? top.namedChildren.find((c) => c !== null && nodes.functions.includes(c.type)) ?? top : top;
      if (nodes.functions.includes(decl.type)) {
        const name = decl.childForFieldName('name');
        if (name) names.push(name.text);
      } else if (decl.type === 'lexical_declaration' || decl.type === 'variable_declaration') {
        for (const d of decl.namedChildren) {
          const name = d?.childForFieldName('name');
          const value = d?.childForFieldName('value');
          if (name && value && /function|arrow/.test(value.type)) names.push(name.text);
        }
      }
    }
    return { parses: true, syntax_error: null, top_level_functions: names };
  } finally {
    tree.delete();
  }
}

/** A calls suite's tests as the gate's AST stage sees them: each a call of the entry function, judged by the judge. */
export function callsTestFacts(suite: CallsSuite): TestFactLike[] {
  return suite.calls.map(() => ({ parses: true, syntax_error: null, calls_target: true, statements: 1, parent_judged: true }));
}
