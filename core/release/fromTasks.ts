import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import type { Task } from '../../schemas/task.ts';
import { releaseIntegrity } from '../gate/integrity.ts';

/** `q_0001`-style query ids in task order (wider when there are more than 9,999 tasks). */
function queryId(index: number, total: number): string {
  return `q_${String(index + 1).padStart(Math.max(4, String(total).length), '0')}`;
}

export interface ReleaseItem {
  task: Task;
  source: string | null;
  /** The query record's metadata (task id, or the generation record of an LLM-made entry). */
  metadata: Record<string, unknown>;
}

/**
 * Tasks to the paper's release format: queries `q_0001`.. in the given order, corpus ids
 * `<query_id>_canonical` and `<query_id>_d1`..; each distractor's operator, span and failing tests travel in
 * its metadata. Key order is fixed, so the same input always serialises to the same bytes.
 */
export function releaseFromTasks(items: readonly ReleaseItem[]): { queries: QueryRecord[]; corpus: CorpusRecord[] } {
  const queries: QueryRecord[] = [];
  const corpus: CorpusRecord[] = [];
  items.forEach(({ task: t, source, metadata }, i) => {
    const qid = queryId(i, items.length);
    const canonicalId = `${qid}_canonical`;
    const dIds = t.distractors.map((_, j) => `${qid}_d${j + 1}`);
    queries.push({
      query_id: qid,
      query: t.query,
      function_name: t.function_name,
      domain: t.domain ?? null,
      tests: t.tests.kind === 'asserts' ? t.tests.tests : [],
      test_setup_code: t.tests.kind === 'asserts' ? (t.tests.setup ?? null) : null,
      test_program: t.tests.kind === 'check' ? t.tests.program : null,
      entry_point: t.tests.kind === 'check' ? t.tests.entry_point : null,
      correct_corpus_ids: [canonicalId],
      distractor_corpus_ids: dIds,
      source,
      metadata,
      // Last, and only for other languages: a Python release keeps its bytes.
      ...(t.tests.kind === 'calls' ? { language: t.tests.language, test_calls: t.tests.calls } : {}),
    });
    const lang = t.tests.kind === 'calls' ? { language: t.tests.language } : {};
    corpus.push({
      corpus_id: canonicalId, query_id: qid, function_name: t.function_name, code: t.canonical,
      is_canonical: true, bug_type: null, bug_description: null, metadata: {}, ...lang,
    });
    t.distractors.forEach((d, j) => {
      corpus.push({
        corpus_id: dIds[j], query_id: qid, function_name: t.function_name, code: d.code,
        is_canonical: false, bug_type: d.bug_type, bug_description: d.bug_description,
        metadata: {
          ...(d.operator ? { operator: d.operator } : {}),
          ...(d.span ? { span: d.span } : {}),
          ...(d.failing_tests ? { failing_tests: d.failing_tests } : {}),
        },
        ...lang,
      });
    });
  });
  // The corpus-integrity gate on what we are about to write: a violation here is our bug, never the data's.
  const problems = releaseIntegrity(queries, corpus);
  if (problems.length) throw new Error(`release integrity: ${problems.slice(0, 5).map((p) => p.message).join('; ')}`);
  return { queries, corpus };
}
