import { cpus } from 'node:os';
import { runJsonLines } from '../python/jsonLines.ts';
import type { MutationCandidate } from '../../core/mutation/types.ts';
import { MUTATE_SCRIPT, MutationCache, defaultMutationCachePath, type CachedEnumeration } from './cache.ts';

export interface MutateRequest {
  id: string;
  code: string;
  function_name: string;
}
export type MutateResponse =
  | { id: string; ok: true; candidates: MutationCandidate[]; rejected_splices: number }
  | { id: string; ok: false; error: string };

export interface AnalyzeRequest {
  id: string;
  code: string;
  tests: string[];
}
export type AnalyzeResponse =
  | { id: string; ok: true; defined: string[]; calls: string[][] }
  | { id: string; ok: false; error: string; defined?: string[] };

/**
 * Runs mutate.py over a batch (JSON lines, see runJsonLines), split over `workers` interpreters (pure-Python
 * AST work, one core each). mutate.py only parses the code it is given, so it runs outside the sandbox.
 */
async function runScript<T>(reqs: readonly object[], workers: number): Promise<T[]> {
  if (reqs.length === 0) return [];
  const n = Math.max(1, Math.min(workers, Math.ceil(reqs.length / 50)));
  const size = Math.ceil(reqs.length / n);
  const chunks = Array.from({ length: n }, (_, i) => reqs.slice(i * size, (i + 1) * size)).filter((c) => c.length);
  const parts = await Promise.all(chunks.map((c) => runJsonLines<T>(MUTATE_SCRIPT, c)));
  return parts.flat();
}

export interface MutatorOptions {
  /** SQLite file for enumerated candidates (cache.ts); null disables caching. Default `.execretrieval/mutation-cache.sqlite`. */
  cachePath?: string | null;
  workers?: number;
}

/** Enumerates every candidate mutant for each request (in the request order). */
export async function enumerateMutants(reqs: readonly MutateRequest[], opts: MutatorOptions = {}): Promise<MutateResponse[]> {
  const cachePath = opts.cachePath === undefined ? defaultMutationCachePath() : opts.cachePath;
  const cache = cachePath ? new MutationCache(cachePath) : null;
  try {
    const out: (MutateResponse | undefined)[] = new Array(reqs.length);
    const missing: number[] = [];
    const keys = cache ? reqs.map((r) => cache.key(r.code, r.function_name)) : [];
    reqs.forEach((r, i) => {
      const hit = cache?.get(keys[i]);
      if (hit) out[i] = { ...hit, id: r.id };
      else missing.push(i);
    });
    const fresh = await runScript<MutateResponse>(missing.map((i) => ({ op: 'mutate', ...reqs[i] })), opts.workers ?? cpus().length);
    missing.forEach((i, k) => (out[i] = fresh[k]));
    // Only successful enumerations are cached: an error may come from a transient cause (e.g. memory).
    cache?.putMany(missing.flatMap((i): [string, CachedEnumeration][] => {
      const r = out[i]!;
      return r.ok ? [[keys[i], { ok: true, candidates: r.candidates, rejected_splices: r.rejected_splices }]] : [];
    }));
    return out as MutateResponse[];
  } finally {
    cache?.close();
  }
}

/** Top-level names a module defines and the names each test calls (for importers that infer function names). */
export async function analyzeCode(reqs: readonly AnalyzeRequest[], workers = cpus().length): Promise<AnalyzeResponse[]> {
  return runScript<AnalyzeResponse>(reqs.map((r) => ({ op: 'analyze', ...r })), workers);
}
