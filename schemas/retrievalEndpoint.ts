import { z } from 'zod';

/**
 * A retrieval endpoint: a search service of the user's (hybrid search, a vendor API behind a small adapter) that takes
 * one query and k and answers ranked corpus ids with scores. The contract (docs/own-retriever.md):
 *   POST <url>/search  {"query_id": "...", "query": "...", "k": 100}
 *     -> 200 {"results": [{"corpus_id": "...", "score": 12.5}, ...]}   best first; scores decide the order
 *   POST <url>/index   {"corpus": [{"corpus_id", "code", "function_name"}, ...], "corpus_sha256": "..."}  (only when `index` is true)
 *     -> 200 (anything): the service indexes the release's corpus before the first search
 */
export const RetrievalEndpoint = z
  .object({
    endpoint_id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, . _ - (used as a configuration name)'),
    /** Base URL (…/search and …/index are appended); `url_env` names a variable that overrides it. */
    url: z.string().nullable().default(null),
    url_env: z.string().nullable().default(null),
    api_key_env: z.string().nullable().default(null),
    /** Results asked per query (the depth stored; 100 = our rankings' depth). */
    k: z.number().int().positive().max(1000).default(100),
    /** Send the corpus to `<url>/index` first; false: the service reads the release files itself. */
    index: z.boolean().default(false),
    /** Requests in flight at once. */
    concurrency: z.number().int().positive().max(64).default(4),
    /** USD per thousand searches, for the ledger's estimate; null = free/unknown. */
    price_usd_per_thousand_queries: z.number().nonnegative().nullable().default(null),
    source: z.string().default(''),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (!c.url && !c.url_env) ctx.addIssue({ code: 'custom', path: ['url'], message: 'set url or url_env' });
  });
export type RetrievalEndpoint = z.infer<typeof RetrievalEndpoint>;
export type RetrievalEndpointInput = z.input<typeof RetrievalEndpoint>;

export const RetrievalEndpointFile = z.object({ endpoints: z.array(z.unknown()) }).strict();
