import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareSameBenchmark, sideBySide, type RunComparison } from '../../core/report/runComparison.ts';
import type { BootstrapSettings } from '../../core/stats/engine.ts';
import { benchmarkDirOf } from '../embeddings/benchmarkItems.ts';
import { readScoredConfigs, reportDir, scoringDir } from './scoringFiles.ts';
import type { ScoringManifest } from './scoreRun.ts';

/** sha256 over the benchmark's queries.jsonl and corpus.jsonl: two runs are on the same benchmark when these match. */
export function benchmarkFingerprint(runDir: string): string {
  const dir = benchmarkDirOf(runDir);
  const h = createHash('sha256');
  for (const f of ['queries.jsonl', 'corpus.jsonl']) {
    const p = join(dir, f);
    if (!existsSync(p)) throw new Error(`${p} not found: ${runDir} has no benchmark`);
    h.update(readFileSync(p));
  }
  return h.digest('hex');
}

function manifestOf(runDir: string): ScoringManifest {
  const p = join(scoringDir(runDir), 'manifest.json');
  if (!existsSync(p)) throw new Error(`${p} not found: run \`execretrieval score --run ${runDir}\` first`);
  return JSON.parse(readFileSync(p, 'utf8')) as ScoringManifest;
}

/** `execretrieval compare-runs <runA> <runB>`: paired tests on the same benchmark, the headlines side by side otherwise. */
export function compareRuns(runA: string, runB: string, settings: BootstrapSettings): RunComparison {
  const ma = manifestOf(runA);
  const mb = manifestOf(runB);
  if (benchmarkFingerprint(runA) === benchmarkFingerprint(runB)) {
    return compareSameBenchmark(readScoredConfigs(runA, ma.configs), readScoredConfigs(runB, mb.configs), settings);
  }
  const summary = (run: string) => {
    const p = join(reportDir(run), 'summary.json');
    if (!existsSync(p)) throw new Error(`${p} not found: run \`execretrieval report --run ${run}\` first`);
    return JSON.parse(readFileSync(p, 'utf8')).estimates;
  };
  return sideBySide(summary(runA), summary(runB));
}
