import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GoldCase } from '../../schemas/gold.ts';
import type { PathPolicy } from '../../schemas/repoIndex.ts';
import { defaultPolicy } from '../../core/repo/pathPolicy.ts';
import { buildIndex } from '../../activities/repo/indexBuild.ts';
import type { Embedder } from '../../activities/repo/embedder.ts';
import { DEFAULT_PIPELINE, type PipelineConfig } from '../../activities/repo/pipeline.ts';
import { runEvaluation } from '../../activities/repo/evalRun.ts';

export function tmpDir(prefix = 'execretrieval-idx-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function indexAt(repoDir: string, revision: string, policy: PathPolicy = defaultPolicy(), embedder?: Embedder) {
  return buildIndex({ repoDir, revision, policy, outDir: tmpDir(), embedder });
}

export async function evalOne(repoDir: string, index: Awaited<ReturnType<typeof indexAt>>, c: GoldCase, cfg: Partial<PipelineConfig> = {}) {
  const out = await runEvaluation({ cases: [c], index, repoDir, mode: 'live', configs: [{ ...DEFAULT_PIPELINE, ...cfg }] });
  return { ...out, result: out.results[0], evaluated: out.evaluated[0] };
}

/** The top of a ranking as the guide's jq snippet prints it, for test failure messages. */
export function top(ranked: readonly { rank: number; file: string; symbols: readonly string[]; role: string }[], n = 6): string {
  return ranked
    .slice(0, n)
    .map((r) => `rank=${r.rank} file=${r.file} symbol=${r.symbols[0] ?? '-'} role=${r.role}`)
    .join('\n');
}
