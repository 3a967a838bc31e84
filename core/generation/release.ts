/**
 * Maps accepted entries to the paper's release format (schemas/benchmark.ts): queries numbered q_0001.. in the
 * given order, corpus ids `<query_id>_canonical` and `<query_id>_d1`..`_dN`. Per-entry generation metadata
 * (model, endpoint, timestamp, token counts as `batch_usage`) travels in `metadata`, as in the paper's release.
 */
import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import type { Task } from '../../schemas/task.ts';
import type { AttemptSummary } from './types.ts';

export interface ReleaseInput {
  task: Task;
  entry_id: string;
  source: string;
  /** The accepted attempt and all attempts before it (for token totals). */
  attempts: readonly AttemptSummary[];
  generation: { model: string; endpoint: string; reasoning_effort: string | null; generated_at: string };
}

export function toRelease(items: readonly ReleaseInput[]): { queries: QueryRecord[]; corpus: CorpusRecord[] } {
  const queries: QueryRecord[] = [];
  const corpus: CorpusRecord[] = [];
  items.forEach((it, i) => {
    const qid = `q_${String(i + 1).padStart(4, '0')}`;
    const t = it.task;
    const usage = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 };
    let cost = 0;
    for (const a of it.attempts) {
      usage.input_tokens += a.usage?.input_tokens ?? 0;
      usage.output_tokens += a.usage?.output_tokens ?? 0;
      usage.reasoning_tokens += a.usage?.reasoning_tokens ?? 0;
      cost += a.cost_usd ?? 0;
    }
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
      source: it.source,
      metadata: { entry_id: it.entry_id, ...it.generation, attempts: it.attempts.length, batch_usage: usage, cost_usd: cost },
    });
    corpus.push({ corpus_id: canonicalId, query_id: qid, function_name: t.function_name, code: t.canonical, is_canonical: true, bug_type: null, bug_description: null, metadata: {} });
    t.distractors.forEach((d, j) =>
      corpus.push({
        corpus_id: dIds[j],
        query_id: qid,
        function_name: t.function_name,
        code: d.code,
        is_canonical: false,
        bug_type: d.bug_type,
        bug_description: d.bug_description,
        metadata: d.failing_tests ? { failing_tests: d.failing_tests } : {},
      }),
    );
  });
  return { queries, corpus };
}
