/**
 * What a query asks for, from its wording: a definition ("what is X", "where is X defined", a bare
 * identifier, an error message or stack trace: the code that raises it), examples ("show me examples", "how
 * do I use X", "where is X called", "tests for"), or configuration ("how is X configured", "which setting",
 * "by default", "environment variable"). The reranker prefers definitions for the first, call sites and
 * tests for the second, and config as well as definitions for the third (a default usually lives in code).
 * Wording only: the gold case's queryClass is a label for slicing, not something production would know.
 *
 * Only the query's prose is read: URLs, paths, dotted names, quoted strings and stack-frame lines are
 * removed first, so `https://api.example.com/` or `examples/app.py` in a pasted trace is not a request
 * for examples (issue 29: that misreading demoted the right chunk from rank 3 to 29).
 */
export type QueryIntent = 'definition' | 'examples' | 'config' | 'neutral';

const EXAMPLES = /\b(examples?|usages?|how (do|can|should) (i|we|you) use|show me how|where (is|are) \S+ (used|called|instantiated)|callers?|call sites?|tests? (that|which|for|showing)|tests? where)\b/i;
const CONFIG = /\b(configur(e|ed|es|ing|ation)|config|settings?|options?|by default|defaults?|default value|environment variables?|env vars?|pyproject|tsconfig|setup\.cfg|package\.json)\b/i;
const DEFINITION = /\b(what is|what are|what does|how does|where is \S+ (defined|declared|implemented)|defin(e|ed|es|ition)|signature|implement(ed|ation)?)\b/i;

const STACK_FRAME = /^\s*(at\s+\S.*|File\s+"[^"]*",\s+line\s+\d+.*|Traceback \(most recent call last\):?|\.\.\.\s*\d+ more)\s*$/gm;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S*/gi;
const PATH_OR_DOTTED = /\S*[\\/]\S*|\S*\w\.\w\S*/g;
const QUOTED = /'[^'\n]*'|"[^"\n]*"|`[^`\n]*`/g;
/**
 * An error report: `SomeError: …` / `pkg.exceptions.MissingSchema: …` (a dotted module path before a class
 * name) at the start of a line, or a stack trace.
 */
const ERROR_REPORT = /(^|\n)\s*(([\w$]+\.)*[\w$]*(Error|Exception|Warning|Fault|Panic)\b\s*(:|$)|([a-z_][\w]*\.)+[A-Z][\w]*:\s)|Traceback \(most recent call last\)|^\s*at\s+\S+\s+\(.*:\d+(:\d+)?\)\s*$/m;
const IDENTIFIER = /^\s*[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*(\(\))?\s*$/;

/** The query's prose: URLs, paths, dotted names, quoted strings and stack frames removed. */
export function queryProse(query: string): string {
  return query.replace(STACK_FRAME, ' ').replace(URL, ' ').replace(QUOTED, ' ').replace(PATH_OR_DOTTED, ' ').replace(/\s+/g, ' ').trim();
}

export function queryIntent(query: string): QueryIntent {
  if (IDENTIFIER.test(query)) return 'definition';
  const prose = queryProse(query);
  if (EXAMPLES.test(prose)) return 'examples';
  if (ERROR_REPORT.test(query)) return 'definition';
  if (CONFIG.test(prose)) return 'config';
  if (DEFINITION.test(prose)) return 'definition';
  return 'neutral';
}

/** Identifiers as written in the query (case kept): what exact symbol hits are looked up with. */
export function queryIdentifiers(query: string): string[] {
  return [...new Set(query.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? [])];
}
