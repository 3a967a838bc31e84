import { z } from 'zod';
import { CALLS_LANGUAGES, TestSuite } from './exec.ts';

/** Languages a functional task may be written in; absent on a record means python (core/languages/functional.ts). */
export const LANGUAGES = ['python', ...CALLS_LANGUAGES] as const;
export const Language = z.enum(LANGUAGES);
export type Language = z.infer<typeof Language>;

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

/**
 * A `calls` suite on a record names neither its language nor its entry point (the task does, once): they are
 * filled in here, so every suite the oracle sees is self-contained (and its cache key holds the language).
 */
function fillCallsSuite(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  const r = raw as Record<string, unknown>;
  const tests = r.tests as Record<string, unknown> | undefined;
  if (typeof tests !== 'object' || tests === null || tests.kind !== 'calls') return raw;
  return { ...r, tests: { ...tests, language: tests.language ?? r.language, entry_point: tests.entry_point ?? r.function_name } };
}

/** One benchmark task in the project's own schema: what importers produce and the gate checks. */
const TaskObject = z.object({
  task_id: z.string().min(1),
  /** Absent means python, so Python records and everything derived from them stay byte-identical. */
  language: Language.optional(),
  query: z.string().min(1),
  function_name: z.string().min(1),
  domain: z.string().optional(),
  canonical: z.string().min(1),
  tests: TestSuite,
  distractors: z.array(Distractor).default([]),
  source: z.object({ dataset: z.string(), ref: z.string().optional() }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export const Task = z.preprocess(
  fillCallsSuite,
  TaskObject.superRefine((t, ctx) => {
    const lang = taskLanguage(t);
    if (lang === 'python' && t.tests.kind === 'calls') ctx.addIssue({ code: 'custom', path: ['tests', 'kind'], message: 'a calls suite needs language javascript, typescript or go' });
    if (lang !== 'python' && t.tests.kind !== 'calls') ctx.addIssue({ code: 'custom', path: ['tests', 'kind'], message: `a ${lang} task's tests must be {kind: "calls"}` });
    if (t.tests.kind === 'calls' && t.tests.language !== lang) ctx.addIssue({ code: 'custom', path: ['tests', 'language'], message: `suite language ${t.tests.language} differs from the task's ${lang}` });
  }),
);
export type Task = z.infer<typeof TaskObject>;

/** The task's language (absent: python). */
export function taskLanguage(t: { language?: Language }): Language {
  return t.language ?? 'python';
}
