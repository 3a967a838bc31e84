/**
 * Deduplicates registry triples the way the paper did by hand, mechanically: (1) exact function names (names
 * must be globally unique: the cross-canonical sweep relies on it), (2) near-duplicate queries, by Jaccard
 * similarity of their content-word sets. The first occurrence wins, so the result depends only on input order.
 */
import type { RegistryEntry } from './types.ts';

type Triple = Omit<RegistryEntry, 'entry_id'>;

export interface Dropped {
  function_name: string;
  domain: string;
  reason: 'invalid_name' | 'duplicate_name' | 'near_duplicate_query';
  duplicate_of: string | null;
  similarity: number | null;
}

// Python keywords cannot be function names; the identifier regex alone would accept them.
const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

// Words that carry no meaning about the task; without removing them two unrelated queries share a lot.
const STOP = new Set(
  'a an the of to and or in on for with by from is are be given return returns that which it its as at into list string number integer value values input output function'.split(' '),
);

export function contentWords(query: string): Set<string> {
  return new Set(
    query
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 1 && !STOP.has(w)),
  );
}

/** |A ∩ B| / |A ∪ B|; 0 for two empty sets (nothing to compare is not a duplicate). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter);
}

export function dedupRegistry(
  triples: readonly Triple[],
  opts: { nearDuplicateThreshold?: number; existing?: readonly Triple[] } = {},
): { kept: Triple[]; dropped: Dropped[] } {
  const threshold = opts.nearDuplicateThreshold ?? 0.8;
  const names = new Map<string, string>();
  const seen: { name: string; words: Set<string> }[] = [];
  for (const e of opts.existing ?? []) {
    names.set(e.function_name.toLowerCase(), e.function_name);
    seen.push({ name: e.function_name, words: contentWords(e.query) });
  }
  const kept: Triple[] = [];
  const dropped: Dropped[] = [];
  for (const t of triples) {
    const base = { function_name: t.function_name, domain: t.domain };
    if (!IDENT.test(t.function_name) || PY_KEYWORDS.has(t.function_name)) {
      dropped.push({ ...base, reason: 'invalid_name', duplicate_of: null, similarity: null });
      continue;
    }
    // Case-insensitive: `isPrime` and `isprime` would confuse readers and some retrievers' tokenizers alike.
    const prior = names.get(t.function_name.toLowerCase());
    if (prior !== undefined) {
      dropped.push({ ...base, reason: 'duplicate_name', duplicate_of: prior, similarity: null });
      continue;
    }
    const words = contentWords(t.query);
    let best: { name: string; sim: number } | null = null;
    for (const s of seen) {
      const sim = jaccard(words, s.words);
      if (sim >= threshold && (!best || sim > best.sim)) best = { name: s.name, sim };
    }
    if (best) {
      dropped.push({ ...base, reason: 'near_duplicate_query', duplicate_of: best.name, similarity: best.sim });
      continue;
    }
    names.set(t.function_name.toLowerCase(), t.function_name);
    seen.push({ name: t.function_name, words });
    kept.push(t);
  }
  return { kept, dropped };
}

/** Stable ids in registry order: e_0001, e_0002, ... (continuing after `start`). */
export function assignEntryIds(triples: readonly Triple[], start = 0): RegistryEntry[] {
  return triples.map((t, i) => ({ entry_id: `e_${String(start + i + 1).padStart(4, '0')}`, ...t }));
}
