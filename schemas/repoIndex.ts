import { z } from 'zod';
import { QueryClass, ReliableContext, Revision, SourceRole } from './gold.ts';

/** Which paths of a revision are searchable. Globs: `**` any depth, `*` within a segment, `?`, `{a,b}`. */
export const PathPolicy = z.strictObject({
  include: z.array(z.string().min(1)).default(['**']),
  exclude: z.array(z.string().min(1)).default([]),
  /** Files larger than this are left out (minified bundles, data dumps). */
  maxFileBytes: z.number().int().positive().default(512 * 1024),
  /** Leave out build output recognised by content (minified, bundled) or by the revision's .gitignore files. */
  detectBuildOutput: z.boolean().default(true),
});
export type PathPolicy = z.infer<typeof PathPolicy>;

/** One file of the revision's tree and what the policy decided about it (the "searchable inventory"). */
export const InventoryEntry = z.strictObject({
  path: z.string(),
  oid: z.string(),
  bytes: z.number().int().nonnegative(),
  included: z.boolean(),
  /** Why it was excluded (`exclude:<glob>`, `not-included`, `too-large`, `binary`, `build-output:gitignored:<file>:<line>:<rule>`, `build-output:minified`, `build-output:bundled:<evidence>`), or `included`. */
  reason: z.string(),
  chunks: z.number().int().nonnegative(),
  /** Non-blank lines of an included file that no chunk spans (unretrievable), as ranges `3-5,9`; absent when none. */
  uncovered_lines: z.string().optional(),
});
export type InventoryEntry = z.infer<typeof InventoryEntry>;

export const EmbedderInfo = z.strictObject({ config_id: z.string(), dims: z.number().int().positive() });
export type EmbedderInfo = z.infer<typeof EmbedderInfo>;

/**
 * Written first with `completed: false` and rewritten with `completed: true` only after every chunk (and
 * vector) is on disk: a run that meets an incomplete manifest is invalid rather than borrowing metadata.
 */
export const IndexManifest = z.strictObject({
  repository: z.string(),
  /** The repository's directory when the index was built: where `repo eval` reads the tree by default. */
  repository_dir: z.string().optional(),
  revision: z.string().regex(/^[0-9a-f]{40}$/),
  index_build_id: z.string(),
  chunker_version: z.string(),
  embedder: EmbedderInfo.nullable(),
  /** What of each chunk the vectors embed (core/repo/denseText.ts: `head:<chars>` or `full`); absent without vectors (older indexes: `full`). */
  dense_text: z.string().optional(),
  policy: PathPolicy,
  policy_hash: z.string(),
  completed: z.boolean(),
  created_at: z.string(),
  files: z.number().int().nonnegative(),
  chunk_count: z.number().int().nonnegative(),
  versions: z.record(z.string(), z.string()),
  /** The chunk limits the index was built with (part of the chunker's configuration and of the build id). */
  chunk_limits: z.strictObject({ max_lines: z.number().int().positive(), max_tokens: z.number().int().positive() }).optional(),
  /**
   * Every language among the included files and how it was chunked (`structural`: by its syntax tree;
   * `config`: by keys; `text`: plain windows), with its files and non-blank lines. A language with a grammar
   * whose parse failed for a file appears under `text` for that file.
   */
  languages: z.array(z.strictObject({ language: z.string(), chunking: z.enum(['structural', 'config', 'text']), files: z.number().int().nonnegative(), lines: z.number().int().nonnegative() })).optional(),
  /** Code (a language with a grammar here, or a known programming language without one) indexed as plain text: its non-blank lines, of all code lines. */
  code_as_text: z.strictObject({ lines: z.number().int().nonnegative(), code_lines: z.number().int().nonnegative(), languages: z.array(z.string()), allowed: z.boolean() }).optional(),
  /** Non-blank lines of the included files, and those no chunk spans (the index's holes), in total. */
  coverage: z.strictObject({ nonblank_lines: z.number().int().nonnegative(), uncovered_lines: z.number().int().nonnegative(), files_with_holes: z.number().int().nonnegative() }).optional(),
});
export type IndexManifest = z.infer<typeof IndexManifest>;

export const LANGUAGES = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'c', 'cpp', 'csharp', 'ruby', 'php', 'swift', 'dart', 'markdown', 'json', 'yaml', 'toml', 'text'] as const;
export const Language = z.enum(LANGUAGES);
export type Language = z.infer<typeof Language>;

export const Chunk = z.strictObject({
  chunk_id: z.string(),
  file: z.string(),
  revision: z.string(),
  language: Language,
  /** 1-based inclusive line span and 0-based [start, end) byte span in the file at `revision`. */
  start_line: z.number().int().positive(),
  end_line: z.number().int().positive(),
  start_byte: z.number().int().nonnegative(),
  end_byte: z.number().int().nonnegative(),
  /** Names this chunk defines or declares (a method also as `Class.method`). */
  symbols: z.array(z.string()),
  /** Identifiers it uses (calls, constructions, type references): what makes it a call site of them. */
  references: z.array(z.string()),
  role: SourceRole,
  text: z.string(),
  /** Set on chunks added by neighbour expansion: the chunk whose hit pulled this one in. */
  expanded_from: z.string().optional(),
  /** Set on the second and later parts of a piece cut to the chunk limits: the chunk id of its first part. */
  parent: z.string().optional(),
});
export type Chunk = z.infer<typeof Chunk>;

/** A ranked candidate: the identity fields the evaluator needs, never the text (that stays in the index). */
export const RankedChunk = z.strictObject({
  rank: z.number().int().positive(),
  chunk_id: z.string(),
  file: z.string(),
  symbols: z.array(z.string()),
  references: z.array(z.string()).default([]),
  role: SourceRole,
  revision: z.string(),
  score: z.number(),
});
export type RankedChunk = z.infer<typeof RankedChunk>;

/** What a retriever run produced for one case: enough to replay it through the evaluator (recorded mode). */
export const RetrievalRecord = z.strictObject({
  /** The run that ranked (or re-scored) this record; a replay names the run and refuses records of any other. */
  run_id: z.string().optional(),
  case_id: z.string(),
  retriever: z.string(),
  query: z.string(),
  /** The query actually searched (after any rewrite); equal to `query` when nothing rewrites it. */
  searched_query: z.string(),
  /** Reliable context applied (core/repo/context.ts): exact filters, and the open file's directory as a preference. */
  filters: z.strictObject({ pathPrefix: z.string().optional(), language: z.string().optional(), preferPathPrefix: z.string().optional() }),
  index_build_id: z.string(),
  index_revision: z.string(),
  candidates_before_rerank: z.array(RankedChunk),
  candidates_after_rerank: z.array(RankedChunk),
  final_context_ids: z.array(z.string()),
});
export type RetrievalRecord = z.infer<typeof RetrievalRecord>;

export const DIAGNOSES = [
  'passed',
  'invalid_index',
  'stale_revision',
  'stale_gold_label',
  'excluded_by_path_policy',
  'not_chunked',
  'metadata_wrong',
  'not_a_candidate',
  'ranked_below_cutoff',
  'demoted_by_reranker',
  'forbidden_source_in_context',
] as const;
export const Diagnosis = z.enum(DIAGNOSES);
export type Diagnosis = z.infer<typeof Diagnosis>;

export const GroupDiagnosis = z.strictObject({
  group_id: z.string(),
  diagnosis: Diagnosis,
  detail: z.string(),
});
export type GroupDiagnosis = z.infer<typeof GroupDiagnosis>;

export const CaseResult = z.strictObject({
  case_id: z.string(),
  retriever: z.string(),
  mode: z.enum(['live', 'recorded']),
  query: z.string(),
  query_class: QueryClass,
  language: z.string(),
  area: z.string(),
  split: z.enum(['train', 'test']),
  case_revision: Revision,
  index_revision: z.string(),
  index_build_id: z.string(),
  cutoff: z.number().int().positive(),
  context: ReliableContext.optional(),
  /** Every required evidence group is satisfied within the cutoff. */
  required_evidence: z.boolean(),
  /** At least one group satisfied within the cutoff. */
  hit: z.boolean(),
  first_relevant_rank: z.number().int().positive().nullable(),
  reciprocal_rank: z.number(),
  group_recall: z.number(),
  missing_group_ids: z.array(z.string()),
  forbidden_chunk_ids: z.array(z.string()),
  revision_mismatches: z.array(z.string()),
  passed: z.boolean(),
  diagnosis: Diagnosis,
  group_diagnoses: z.array(GroupDiagnosis),
  final_context_ids: z.array(z.string()),
  /** What the final context costs the answer stage: lines and tokens (core/repo/chunkBounds approxTokens) summed over its chunks. */
  context_lines: z.number().int().nonnegative().optional(),
  context_tokens: z.number().int().nonnegative().optional(),
});
export type CaseResult = z.infer<typeof CaseResult>;
