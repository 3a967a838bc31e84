/**
 * Code-aware tokenizer shared by BM25 and anything lexical.
 *
 * Rules (lowercase output, deterministic, no locale):
 * - an identifier is a maximal run of letters, digits and underscores; everything else (operators,
 *   brackets, quotes, whitespace) separates tokens and is dropped;
 * - an identifier is split into parts at underscores, at lower→Upper (`maxValue` → max, value), at the
 *   end of an acronym (`HTTPResponse` → http, response) and between letters and digits (`utf8` → utf, 8);
 * - the whole identifier is kept as a token too when it has more than one part, as its parts joined
 *   without separators (`get_max_value` and `getMaxValue` both → getmaxvalue, get, max, value). Why: a
 *   query naming the exact function should outrank documents that merely share its words, and splitting
 *   alone loses that signal (the whole identifier is rare, hence a high-idf term); joining the parts makes
 *   that token independent of the naming convention.
 *
 * Tokens come out in source order, the whole identifier before its parts.
 */
const IDENTIFIER = /[\p{L}\p{N}_]+/gu;
// Boundaries inside an underscore-free chunk: aB | ABc (split before the last capital) | a1 | 1a.
const PART = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}]+/gu;

export function splitIdentifier(identifier: string): string[] {
  const parts: string[] = [];
  for (const chunk of identifier.split('_')) {
    if (!chunk) continue;
    for (const m of chunk.matchAll(PART)) parts.push(m[0].toLowerCase());
  }
  return parts;
}

export function tokenizeCode(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IDENTIFIER)) {
    const parts = splitIdentifier(m[0]);
    if (parts.length === 0) continue; // only underscores
    if (parts.length > 1) out.push(parts.join(''));
    out.push(...parts);
  }
  return out;
}
