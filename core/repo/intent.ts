/**
 * What a query asks for, from its wording: a definition ("what is X", "how is X configured", "where is X
 * defined") or examples ("show me examples", "how do I use X", "where is X called"). The reranker prefers
 * definitions for the first and call sites and tests for the second (the guide's RetryPolicy example).
 * Wording only: the gold case's queryClass is a label for slicing, not something production would know.
 */
export type QueryIntent = 'definition' | 'examples' | 'neutral';

const EXAMPLES = /\b(examples?|usages?|how (do|can|should) (i|we|you) use|show me how|where (is|are) \S+ (used|called|instantiated)|callers?|call sites?|tests? (that|which|for))\b/i;
const DEFINITION = /\b(what is|what are|what does|how is \S+ (configured|defined|implemented)|how does|where is \S+ (defined|declared|implemented)|defin(e|ed|es|ition)|signature|implement(ed|ation)?|configur(e|ed|ation))\b/i;

export function queryIntent(query: string): QueryIntent {
  if (EXAMPLES.test(query)) return 'examples';
  if (DEFINITION.test(query)) return 'definition';
  return 'neutral';
}

/** Identifiers as written in the query (case kept): what exact symbol hits are looked up with. */
export function queryIdentifiers(query: string): string[] {
  return [...new Set(query.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? [])];
}
