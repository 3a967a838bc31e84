/**
 * Taking the query out of the code (issue 28). When an importer builds the query from a docstring of the code
 * itself (the check-program preset: code = prompt + solution, query = the prompt's docstring), every snippet of
 * the task — the canonical and each twin mutated from it — would carry the query word for word, and retrieval
 * would only have to match text. The importer removes that docstring from the stored code by splicing out the
 * lines of its statement, at the positions Python's ast reports (infra/python/ast_facts.py `docstring_span`),
 * as the mutations splice their edits. Only whole lines are removed, so nothing else of the code moves; any
 * other layout is left alone and says why.
 */

/** 1-based lines, character columns of the docstring statement; null when the source has no docstring there. */
export interface DocstringSpanFacts {
  span: { start_line: number; start_col: number; end_line: number; end_col: number } | null;
  /** The docstring, cleaned as `docstrings` returns it (inspect.cleandoc, stripped). */
  docstring?: string;
  /** Statements in the docstring's owner (function, class or module) body, the docstring included. */
  body_statements?: number;
  /** A function or class (`definition`), or the module. */
  owner?: 'definition' | 'module';
  syntax_error: string | null;
}

export type DocstringRemoval = { removed: true; code: string } | { removed: false; reason: string };

/**
 * The code without the docstring statement `facts` locates, when that docstring is `query` (else the code does
 * not carry the query and stays as it is). Refused, with the reason, when the statement shares a line with other
 * code or is its function's only statement (removing it would leave an empty body).
 */
export function removeQueryDocstring(code: string, query: string, facts: DocstringSpanFacts): DocstringRemoval {
  if (facts.syntax_error) return { removed: false, reason: `code does not parse: ${facts.syntax_error}` };
  if (!facts.span || facts.docstring === undefined) return { removed: false, reason: 'the code has no docstring' };
  if (facts.docstring !== query.trim()) return { removed: false, reason: 'the code\'s docstring is not the query' };
  if (facts.owner !== 'module' && (facts.body_statements ?? 0) <= 1) return { removed: false, reason: 'the docstring is its function\'s only statement' };
  const lines = code.split('\n');
  const { start_line, start_col, end_line, end_col } = facts.span;
  const before = lines[start_line - 1]?.slice(0, start_col) ?? '';
  const after = lines[end_line - 1]?.slice(end_col) ?? '';
  // A trailing comment goes with the docstring's line; anything else after it (`; x = 1`) is code.
  if (before.trim() !== '' || !/^\s*(#.*)?$/.test(after)) return { removed: false, reason: 'the docstring shares a line with other code' };
  return { removed: true, code: [...lines.slice(0, start_line - 1), ...lines.slice(end_line)].join('\n') };
}
