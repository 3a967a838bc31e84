import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';

export interface IntegrityProblem {
  code: 'DUPLICATE_QUERY_ID' | 'DUPLICATE_CORPUS_ID' | 'MISSING_CORPUS_ID' | 'UNREFERENCED_CANONICAL' | 'CORRECT_ID_NOT_CANONICAL';
  id: string;
  message: string;
}

/**
 * The corpus-integrity gate on a release (queries.jsonl + corpus.jsonl): ids unique; every
 * correct_corpus_ids / distractor_corpus_ids entry exists; no canonical is unreferenced.
 */
export function releaseIntegrity(queries: readonly QueryRecord[], corpus: readonly CorpusRecord[]): IntegrityProblem[] {
  const problems: IntegrityProblem[] = [];
  const corpusById = new Map<string, CorpusRecord>();
  for (const c of corpus) {
    if (corpusById.has(c.corpus_id)) problems.push({ code: 'DUPLICATE_CORPUS_ID', id: c.corpus_id, message: `corpus_id ${c.corpus_id} appears more than once` });
    else corpusById.set(c.corpus_id, c);
  }
  const seenQueries = new Set<string>();
  const referenced = new Set<string>();
  for (const q of queries) {
    if (seenQueries.has(q.query_id)) problems.push({ code: 'DUPLICATE_QUERY_ID', id: q.query_id, message: `query_id ${q.query_id} appears more than once` });
    seenQueries.add(q.query_id);
    for (const id of [...q.correct_corpus_ids, ...q.distractor_corpus_ids]) {
      referenced.add(id);
      if (!corpusById.has(id)) problems.push({ code: 'MISSING_CORPUS_ID', id: q.query_id, message: `query ${q.query_id} references corpus_id ${id}, which is not in the corpus` });
    }
    for (const id of q.correct_corpus_ids) {
      const c = corpusById.get(id);
      if (c && !c.is_canonical) problems.push({ code: 'CORRECT_ID_NOT_CANONICAL', id: q.query_id, message: `query ${q.query_id} lists ${id} as correct but it is not a canonical` });
    }
  }
  for (const c of corpus) {
    if (c.is_canonical && !referenced.has(c.corpus_id)) problems.push({ code: 'UNREFERENCED_CANONICAL', id: c.corpus_id, message: `canonical ${c.corpus_id} is not referenced by any query` });
  }
  return problems;
}
