import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A small built benchmark in the release format (queries.jsonl + corpus.jsonl) for sweep tests. */
export function writeTinyBenchmark(runDir: string, n = 5): { queries: string[]; corpus: string[] } {
  mkdirSync(runDir, { recursive: true });
  const queries: object[] = [];
  const corpus: object[] = [];
  for (let i = 1; i <= n; i++) {
    const qid = `q_${String(i).padStart(4, '0')}`;
    const fn = `func_${i}`;
    queries.push({ query_id: qid, query: `Return the sum of x and ${i}.`, function_name: fn, tests: [`assert ${fn}(1) == ${1 + i}`], correct_corpus_ids: [`${qid}_canonical`], distractor_corpus_ids: [`${qid}_d1`] });
    corpus.push({ corpus_id: `${qid}_canonical`, query_id: qid, function_name: fn, code: `def ${fn}(x):\n    return x + ${i}\n`, is_canonical: true });
    corpus.push({ corpus_id: `${qid}_d1`, query_id: qid, function_name: fn, code: `def ${fn}(x):\n    return x - ${i}\n`, is_canonical: false, bug_type: 'wrong_operator' });
  }
  writeFileSync(join(runDir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
  writeFileSync(join(runDir, 'corpus.jsonl'), corpus.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return { queries: queries.map((q: any) => q.query_id).sort(), corpus: corpus.map((c: any) => c.corpus_id).sort() };
}
