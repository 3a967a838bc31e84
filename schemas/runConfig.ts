import { z } from 'zod';

/** The seed every command uses when none is given: mutant order (build), bootstrap (score, report), the ranking tie order (score: its key, core/ranking/tieKey.ts), run. */
export const DEFAULT_SEED = 0;

/**
 * `run.yaml`: everything `execretrieval run` does, in one reviewed file (example: data/run.example.yaml).
 * Every field is optional; a flag given on the command line overrides the file, the file overrides the
 * defaults. Unknown keys are errors, so a misspelt field never silently falls back to a default.
 */
export const RunConfig = z.strictObject({
  /** Run id: outputs in runs/<id>/. */
  id: z.string().min(1).optional(),
  /** mbpp | curated | a tasks .jsonl (or .jsonl.gz) | a release directory. */
  source: z.string().min(1).optional(),
  /** How distractors are made. Only `mechanical` (single-edit mutants verified by execution) runs in `run`; LLM generation is `generate`. */
  generator: z.literal('mechanical').optional(),
  /** Gate profile for the build: default, check, mbpp, canonical. */
  profile: z.string().min(1).optional(),
  /** Most mutant candidates verified per task. */
  cap: z.number().int().positive().optional(),
  /** Seed for the mutant order, the bootstrap and the ranking tie order. */
  seed: z.number().int().min(0).max(0xffffffff).optional(),
  /** Embedding configurations to run (default: every one that can run here); BM25 is always scored. */
  configs: z.array(z.string().min(1)).min(1).optional(),
  /** Extra embedding-registry files (`--config-file`), merged after ours; paths relative to the working directory. */
  config_files: z.array(z.string().min(1)).min(1).optional(),
  /** Bootstrap replicates for the intervals and paired tests. */
  replicates: z.number().int().positive().optional(),
  /** Per-suite execution timeout in seconds when scoring. */
  timeout_s: z.number().positive().optional(),
  /** Build the benchmark again even if a complete one exists. */
  rebuild: z.boolean().optional(),
  /** Exec batches in flight at once (default 256: enough to keep every worker serving the exec queue busy). */
  batches_in_flight: z.number().int().positive().optional(),
  /** Embed hosted OpenAI configurations through OpenAI's Batch API (half price, minutes to 24 h; docs/batch.md). */
  batch: z.boolean().optional(),
});
export type RunConfig = z.infer<typeof RunConfig>;
