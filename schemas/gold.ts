import { z } from 'zod';

/**
 * Gold cases for repository retrieval evaluation (seed: code-retrieval-evaluation-guide, "Build gold cases
 * around repository decisions"). A team keeps these files in its own repository; each case is pinned to a
 * commit so a later refactor cannot turn yesterday's gold file into today's stale label.
 */

/** What a chunk is for. The first six are what a target may accept; `generated` and `migration` exist so
 * the chunker can label traps (they are rarely acceptable evidence, but a target may still ask for them);
 * `import` marks a region of only imports and re-exports (no call site of anything). */
export const SOURCE_ROLES = [
  'definition',
  'declaration',
  'call_site',
  'test',
  'docs',
  'config',
  'generated',
  'migration',
  'import',
] as const;
export const SourceRole = z.enum(SOURCE_ROLES);
export type SourceRole = z.infer<typeof SourceRole>;

/** Kinds of query; they exercise lexical, structural and semantic signals differently. */
export const QUERY_CLASSES = [
  'exact_identifier',
  'behaviour_description',
  'stack_trace',
  'usage_examples',
  'configuration',
] as const;
export const QueryClass = z.enum(QUERY_CLASSES);
export type QueryClass = z.infer<typeof QueryClass>;

/** A full or abbreviated commit id. Branch names are refused on purpose: they move. */
export const Revision = z.string().regex(/^[0-9a-f]{7,40}$/, 'a commit id (7 to 40 lowercase hex digits)');

/**
 * One acceptable piece of evidence. `file` is a repository path, or a glob when it contains `*`, `?` or `{`
 * (stable across chunker changes, as the guide asks: no chunk ids in gold labels).
 */
export const EvidenceTarget = z.strictObject({
  file: z.string().min(1),
  symbol: z.string().min(1).optional(),
  roles: z.array(SourceRole).min(1),
});
export type EvidenceTarget = z.infer<typeof EvidenceTarget>;

/** A required evidence group: satisfied when any one of its targets is in context. */
export const EvidenceGroup = z.strictObject({
  id: z.string().min(1),
  anyOf: z.array(EvidenceTarget).min(1),
});
export type EvidenceGroup = z.infer<typeof EvidenceGroup>;

/** Reliable user state (open file, package, language): never guessed from the query text. */
export const ReliableContext = z.strictObject({
  openFile: z.string().min(1).optional(),
  /** A path prefix naming the package the user is working in. */
  package: z.string().min(1).optional(),
  language: z.string().min(1).optional(),
});
export type ReliableContext = z.infer<typeof ReliableContext>;

export const GoldCase = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" or "-"'),
    query: z.string().min(1),
    repositoryRevision: Revision,
    evidence: z.array(EvidenceGroup).min(1),
    forbiddenPathPrefixes: z.array(z.string().min(1)).default([]),
    /**
     * Forbidden sources beyond prefixes: `file` a path or a glob (`src/**\/*.test.ts`), `symbol` optional
     * (one deprecated symbol in an otherwise allowed file). A chunk in the context that matches is forbidden.
     */
    forbidden: z.array(z.strictObject({ file: z.string().min(1), symbol: z.string().min(1).optional() })).optional(),
    cutoff: z.number().int().min(1),
    queryClass: QueryClass,
    context: ReliableContext.optional(),
    /** Why these targets are acceptable; future maintainers need it after paths change. */
    rationale: z.string().min(1),
    /** Repository area for slicing (defaults to the first path segment of the first target). */
    area: z.string().min(1).optional(),
    /** Tuning split. Unset: assigned deterministically from the id (see core/repo/split.ts). */
    split: z.enum(['train', 'test']).optional(),
  })
  .superRefine((c, ctx) => {
    const ids = c.evidence.map((g) => g.id);
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) ctx.addIssue({ code: 'custom', path: ['evidence'], message: `duplicate evidence group id ${JSON.stringify(dup)}` });
  });
export type GoldCase = z.infer<typeof GoldCase>;
