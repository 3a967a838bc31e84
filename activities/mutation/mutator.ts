import { cpus } from 'node:os';
import { runJsonLines } from '../python/jsonLines.ts';
import type { MutationCandidate } from '../../core/mutation/types.ts';
import type { Language } from '../../schemas/task.ts';
import type { CallsLanguage } from '../../schemas/exec.ts';
import { parserForGrammar } from '../languages/grammar.ts';
import { PYTHON_DEFINITIONS, unreachableSpans } from '../languages/reachable.ts';
import { enumerateTreeMutants } from './treeMutator.ts';
import { MUTATE_SCRIPT, MutationCache, defaultMutationCachePath, type CachedEnumeration } from './cache.ts';

export interface MutateRequest {
  id: string;
  code: string;
  function_name: string;
  /** Absent: python (infra/python/mutate.py); otherwise the tree-sitter mutator (treeMutator.ts). */
  language?: Language;
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

/**
 * Enumerates every candidate mutant for each request (in the request order): Python through mutate.py, the
 * other languages on their tree-sitter tree. In every language a candidate edits only code the entry function
 * can reach (activities/languages/reachable.ts).
 */
export async function enumerateMutants(reqs: readonly MutateRequest[], opts: MutatorOptions = {}): Promise<MutateResponse[]> {
  const tree = reqs.flatMap((r, i) => (r.language && r.language !== 'python' ? [i] : []));
  const py = reqs.flatMap((r, i) => (r.language && r.language !== 'python' ? [] : [i]));
  const [fromTree, fromPy] = await Promise.all([
    enumerateTreeMutants(tree.map((i) => ({ ...reqs[i], language: reqs[i].language as CallsLanguage }))),
    enumeratePython(py.map((i) => reqs[i]), opts).then((rs) => Promise.all(rs.map((r, k) => reachableOnly(r, reqs[py[k]])))),
  ]);
  const out: MutateResponse[] = new Array(reqs.length);
  tree.forEach((i, k) => (out[i] = fromTree[k]));
  py.forEach((i, k) => (out[i] = fromPy[k]));
  return out;
}

/** Drops Python candidates that edit a top-level function or class the entry function never reaches. */
async function reachableOnly(res: MutateResponse, req: MutateRequest): Promise<MutateResponse> {
  if (!res.ok || !res.candidates.length) return res;
  const tree = (await parserForGrammar('python')).parse(req.code);
  if (!tree) return res;
  const dead = unreachableSpans(tree.rootNode, req.function_name, PYTHON_DEFINITIONS);
  tree.delete();
  if (!dead.length) return res;
  const bytes = dead.map(([s, e]) => [Buffer.byteLength(req.code.slice(0, s)), Buffer.byteLength(req.code.slice(0, e))]);
  return { ...res, candidates: res.candidates.filter((c) => !bytes.some(([s, e]) => c.start >= s && c.end <= e)) };
}

async function enumeratePython(reqs: readonly MutateRequest[], opts: MutatorOptions): Promise<MutateResponse[]> {
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
    const fresh = await runScript<MutateResponse>(missing.map((i) => ({ op: 'mutate', id: reqs[i].id, code: reqs[i].code, function_name: reqs[i].function_name })), opts.workers ?? cpus().length);
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
