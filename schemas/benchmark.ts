import { z } from 'zod';
import { Call, CallsLanguage } from './exec.ts';

/**
 * The paper's release format: `queries.jsonl` + `corpus.jsonl`. First-class for import and export.
 * Ids: query `q_0001`; corpus `<query_id>_canonical`, `<query_id>_d1` .. `_d4`.
 */
export const QueryRecord = z.object({
  query_id: z.string().min(1),
  query: z.string().min(1),
  function_name: z.string().min(1),
  domain: z.string().nullable().default(null),
  /** Assert statements (the paper's tests). Empty when `test_program` is used. */
  tests: z.array(z.string()),
  test_setup_code: z.string().nullable().default(null),
  /** HumanEval-style `check(candidate)` program, with `entry_point`; null for assert suites. */
  test_program: z.string().nullable().default(null),
  entry_point: z.string().nullable().default(null),
  correct_corpus_ids: z.array(z.string()).min(1),
  distractor_corpus_ids: z.array(z.string()).default([]),
  source: z.string().nullable().default(null),
  metadata: z.record(z.string(), z.unknown()).default({}),
  /** Absent: python. JavaScript, TypeScript and Go queries carry their tests as `test_calls` (schemas/exec.ts Call). */
  language: CallsLanguage.optional(),
  test_calls: z.array(Call).optional(),
});
export type QueryRecord = z.infer<typeof QueryRecord>;

export const CorpusRecord = z.object({
  corpus_id: z.string().min(1),
  query_id: z.string().min(1),
  function_name: z.string().min(1),
  code: z.string(),
  is_canonical: z.boolean(),
  bug_type: z.string().nullable().default(null),
  bug_description: z.string().nullable().default(null),
  metadata: z.record(z.string(), z.unknown()).default({}),
  /** Absent: python. */
  language: CallsLanguage.optional(),
});
export type CorpusRecord = z.infer<typeof CorpusRecord>;
