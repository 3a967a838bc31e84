import { z } from 'zod';
import { TestSuite } from './exec.ts';

/** The paper's six allowed single-edit bug types (wrong_semantics is deliberately absent). */
export const BUG_TYPES = [
  'off_by_one',
  'wrong_operator',
  'swap_arguments',
  'remove_edge_case_check',
  'wrong_comparison',
  'off_by_one_boundary',
] as const;
export const BugType = z.enum(BUG_TYPES);
export type BugType = z.infer<typeof BugType>;

/** The paper's ten domains. */
export const DOMAINS = [
  'bit_manipulation',
  'collections',
  'data_transformation',
  'date_time',
  'geometry',
  'math_numerical',
  'sorting_searching',
  'state_machines',
  'string_processing',
  'validation',
] as const;

export const Span = z.object({
  /** UTF-8 byte offsets into the canonical source, end exclusive. */
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  line: z.number().int().positive(),
});

export const Distractor = z.object({
  code: z.string(),
  /** One of BUG_TYPES for generated data; imported data may carry other labels, which the gate reports. */
  bug_type: z.string(),
  bug_description: z.string(),
  span: Span.optional(),
  /** Indices of the tests this distractor fails, as verified by the oracle. */
  failing_tests: z.array(z.number().int().nonnegative()).optional(),
  operator: z.string().optional(),
});
export type Distractor = z.infer<typeof Distractor>;

/** One benchmark task in the project's own schema: what importers produce and the gate checks. */
export const Task = z.object({
  task_id: z.string().min(1),
  query: z.string().min(1),
  function_name: z.string().min(1),
  domain: z.string().optional(),
  canonical: z.string().min(1),
  tests: TestSuite,
  distractors: z.array(Distractor).default([]),
  source: z.object({ dataset: z.string(), ref: z.string().optional() }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Task = z.infer<typeof Task>;
