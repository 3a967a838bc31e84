/**
 * Benchmark: statistics for 24 configurations × 1,000 queries × 5,000 bootstrap replicates × every metric
 * (bootstrap CIs for all report statistics + pairwise paired-bootstrap differences, McNemar and Holm for
 * every pair), against a straightforward per-replicate implementation measured in the same run.
 *
 * The straightforward version does what a first implementation would: for every statistic (and every
 * pair × metric), loop over replicates, draw n query indices, and average. It re-seeds the same generator
 * per statistic so its replicates are exactly the vectorised ones, and the two must agree (checked below).
 * It is O(stats × R × n) draws, ~10^10 here, so it is timed on the first R_BASE replicates and scaled by
 * R / R_BASE (both are linear in R; the scaled figure is labelled as such).
 *
 * The bar it must clear is a vectorised numpy version of the same resampling (bench/stats_numpy.py: counts ×
 * matrix through BLAS, percentiles along the replicate axis), run on the same columns in the same run; CPU seconds
 * are compared (a shared machine's wall clock says more about the neighbours).
 *
 *   node --import tsx bench/stats.ts [--configs 24] [--queries 1000] [--replicates 5000] [--base-replicates 10]
 */
import { BUG_TYPES, DOMAINS } from '../schemas/task.ts';
import { Xoshiro128 } from '../core/stats/prng.ts';
import { percentileInterval } from '../core/stats/quantile.ts';
import { mcnemarExact, discordantCounts } from '../core/stats/mcnemar.ts';
import { holmAdjust } from '../core/stats/holm.ts';
import { BINARY_METRICS, HASH_ORDER_METRICS, METRICS, type MetricName } from '../core/metrics/per_query.ts';
import { buildStatSpecs, computeStatistics, PAIRWISE_METRICS, statKey } from '../core/report/statistics.ts';
import type { ConfigScores, QueryScore } from '../core/report/types.ts';
import { estimateAll, type RatioStat } from '../core/stats/engine.ts';
import { pairedBootstrapDifference } from '../core/stats/paired_bootstrap.ts';
import { planPacking } from '../core/stats/packing.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { venvPythonExecutable } from '../activities/python/interpreter.ts';
import { PROJECT_ROOT } from '../workers/registry.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const C = arg('configs', 24);
const N = arg('queries', 1000);
const R = arg('replicates', 5000);
const R_BASE = Math.min(R, arg('base-replicates', 10));
const SEED = 20240601;

/** Synthetic but realistic scores: per-config skill, exec@k monotone in k, 4 distractors with bug types. */
function synthesise(): ConfigScores[] {
  const g = new Xoshiro128(1);
  const u = () => g.nextU32() / 2 ** 32;
  return Array.from({ length: C }, (_, c) => {
    const skill = 0.2 + (0.6 * c) / Math.max(1, C - 1);
    const queries: QueryScore[] = Array.from({ length: N }, (_, i) => {
      const firstPass = u() < skill ? 1 : u() < 0.5 ? 2 + Math.floor(u() * 9) : 99;
      const m = {} as Record<MetricName, number>;
      for (const k of [1, 3, 5, 10]) {
        m[`exec@${k}` as MetricName] = firstPass <= k ? 1 : 0;
        m[`execp@${k}` as MetricName] = firstPass <= k ? (1 + Math.floor(u() * (k - firstPass + 1))) / k : 0;
        m[`ndcg@${k}` as MetricName] = firstPass <= k ? 1 / Math.log2(firstPass + 1) : 0;
      }
      m['rr_exec@10'] = firstPass <= 10 ? 1 / firstPass : 0;
      m.canonical_rank = firstPass <= 10 ? firstPass : 11 + Math.floor(u() * 90);
      // Tie-aware expectations: the hash-order value, averaged with another order's for the 5% of queries with a tie.
      const tied = u() < 0.05;
      for (const name of HASH_ORDER_METRICS) if (name !== 'canonical_rank') m[`${name}_ta` as MetricName] = tied ? (m[name] + u()) / 2 : m[name];
      const by: Record<string, { outscores: number; ties: number; total: number }> = {};
      let deceived: 0 | 1 = 0;
      let wins = 0;
      for (let d = 0; d < 4; d++) {
        const bug = BUG_TYPES[(i + d) % BUG_TYPES.length];
        const out = u() > skill ? 1 : 0;
        if (out) deceived = 1;
        wins += 1 - out;
        const s = (by[bug] ??= { outscores: 0, ties: 0, total: 0 });
        s.total++;
        s.outscores += out;
      }
      const miss = m['exec@1'] ? 0 : 1;
      return {
        query_id: `q_${String(i).padStart(4, '0')}`,
        domain: DOMAINS[i % DOMAINS.length],
        metrics: m,
        deception: {
          has_distractor: 1,
          deceived,
          rank1_miss: miss as 0 | 1,
          rank1_own_distractor: (miss && u() < 0.95 ? 1 : 0) as 0 | 1,
          tied: (u() < 0.05 ? 1 : 0) as 0 | 1,
          pref_wins: wins,
          pref_pairs: 4,
          by_bug_type: by,
        },
      };
    });
    return { config_id: `cfg_${String(c).padStart(2, '0')}`, queries };
  });
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
}

/** The straightforward implementation: one statistic, one replicate, one resample at a time. */
function naiveReplicates(n: number, s: RatioStat, reps: number): Float64Array {
  const g = new Xoshiro128(SEED);
  const out = new Float64Array(reps);
  for (let r = 0; r < reps; r++) {
    let a = 0;
    let b = 0;
    for (let t = 0; t < n; t++) {
      const j = g.nextInt(n);
      a += s.num[j];
      b += s.den ? s.den[j] : 1;
    }
    out[r] = b === 0 ? NaN : a / b;
  }
  return out;
}

function naiveAll(configs: ConfigScores[], reps: number) {
  const specs = buildStatSpecs(configs);
  const cis = new Map<string, [number, number] | null>();
  for (const s of specs.stats) cis.set(s.key, percentileInterval(naiveReplicates(specs.n, s, reps)));
  const byKey = new Map(specs.stats.map((s) => [s.key, s]));
  const pairs: { metric: string; lo: number | null; hi: number | null; p: number | null }[] = [];
  const ids = configs.map((c) => c.config_id);
  for (const metric of PAIRWISE_METRICS) {
    const ps: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        // Paired: one resample per replicate, both configurations averaged on it.
        const A = byKey.get(statKey(ids[i], metric))!;
        const B = byKey.get(statKey(ids[j], metric))!;
        const g = new Xoshiro128(SEED);
        const diff = new Float64Array(reps);
        for (let r = 0; r < reps; r++) {
          let sa = 0, da = 0, sb = 0, db = 0;
          for (let t = 0; t < specs.n; t++) {
            const q = g.nextInt(specs.n);
            sa += A.num[q];
            da += A.den ? A.den[q] : 1;
            sb += B.num[q];
            db += B.den ? B.den[q] : 1;
          }
          diff[r] = sa / da - sb / db;
        }
        const ci = percentileInterval(diff);
        let p: number | null = null;
        if ((BINARY_METRICS as readonly string[]).includes(metric)) {
          const dc = discordantCounts(specs.binary.get(A.key)!, specs.binary.get(B.key)!);
          p = mcnemarExact(dc.b, dc.c).p_value;
          ps.push(p);
        }
        pairs.push({ metric, lo: ci?.[0] ?? null, hi: ci?.[1] ?? null, p });
      }
    }
    if (ps.length) holmAdjust(ps);
  }
  return { cis, pairs };
}

const configs = synthesise();
const specs = buildStatSpecs(configs);
const distinct = [...new Set(specs.stats.flatMap((s) => (s.den ? [s.num, s.den] : [s.num])))];
const plan = planPacking(distinct, N);
console.log(`${C} configs × ${N} queries × ${R} replicates; ${specs.stats.length} statistics (${METRICS.length} metrics + deception/bug/domain per config), ${(C * (C - 1)) / 2} pairs × ${PAIRWISE_METRICS.length} metrics; ${distinct.length} distinct columns -> ${plan.slots.length} bit-packed slots (${plan.raw.filter(Boolean).length} raw float)`);
console.log(`load average at start: ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')} (2 cores shared)`);

// Agreement on R_BASE replicates: identical resamples, so identical intervals (up to summation order).
const vecSmall = computeStatistics(configs, { replicates: R_BASE, seed: SEED, alpha: 0.05 });
let t0 = performance.now();
let cpu0 = process.cpuUsage();
const naive = naiveAll(configs, R_BASE);
const naiveMs = performance.now() - t0;
const naiveCpu = cpuSeconds(cpu0);
let worst = 0;
for (const [k, ci] of naive.cis) {
  const [config, stat] = k.split('\u0000');
  const e = vecSmall.estimates[config][stat];
  if (ci && e.ci_low !== null) worst = Math.max(worst, Math.abs(ci[0] - e.ci_low), Math.abs(ci[1] - e.ci_high!));
}
naive.pairs.forEach((p, i) => {
  const v = vecSmall.pairwise[i];
  if (p.lo !== null && v.ci_low !== null) worst = Math.max(worst, Math.abs(p.lo - v.ci_low), Math.abs(p.hi! - v.ci_high!));
});
if (worst > 1e-9) throw new Error(`vectorised and straightforward bootstraps disagree by ${worst}`);

t0 = performance.now();
cpu0 = process.cpuUsage();
const phases: string[] = [];
const full = computeStatistics(configs, { replicates: R, seed: SEED, alpha: 0.05 }, (name, ms) => phases.push(`${name} ${(ms / 1000).toFixed(2)} s`));
const fastMs = performance.now() - t0;
const fastCpu = cpuSeconds(cpu0);
const naiveScaled = (naiveMs * R) / R_BASE;
console.log(`vectorised (shared resamples, counts × matrix): ${(fastMs / 1000).toFixed(2)} s wall, ${fastCpu.toFixed(2)} s CPU, for ${R} replicates (${full.pairwise.length} pairwise rows; ${phases.join(', ')})`);
console.log(`straightforward per-replicate: ${(naiveMs / 1000).toFixed(2)} s wall (${naiveCpu.toFixed(2)} s CPU) for ${R_BASE} replicates -> ${(naiveScaled / 1000).toFixed(1)} s scaled to ${R}`);
console.log(`max |CI difference| on the shared ${R_BASE} replicates: ${worst.toExponential(2)}`);
console.log(`speed-up: ${(naiveScaled / fastMs).toFixed(1)}× wall, ${((naiveCpu * R) / R_BASE / fastCpu).toFixed(1)}× CPU  (target: vectorised under 10 s wall: ${fastMs < 10_000 ? 'met' : 'NOT met'}; CPU time is the fairer figure on a shared machine)`);

/** The numpy leg on the same columns: its own CPU and wall seconds for the computation. */
function numpyLeg(): { wall_s: number; cpu_s: number; numpy: string } {
  const colIndex = new Map(distinct.map((c, i) => [c, i]));
  const byKey = new Map(specs.stats.map((s, i) => [s.key, i]));
  const ids = configs.map((c) => c.config_id);
  const pa: number[] = [];
  const pb: number[] = [];
  for (const metric of PAIRWISE_METRICS) {
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        pa.push(byKey.get(statKey(ids[i], metric))!);
        pb.push(byKey.get(statKey(ids[j], metric))!);
      }
    }
  }
  const S = specs.stats.length;
  const head = Int32Array.from([N, distinct.length, R, SEED, S, pa.length]);
  const cols = new Float64Array(distinct.length * N);
  distinct.forEach((c, i) => cols.set(c, i * N));
  const ints = Int32Array.from([...specs.stats.map((s) => colIndex.get(s.num)!), ...specs.stats.map((s) => (s.den ? colIndex.get(s.den)! : -1)), ...pa, ...pb]);
  const dir = mkdtempSync(join(tmpdir(), 'stats-numpy-'));
  const file = join(dir, 'columns.bin');
  writeFileSync(file, Buffer.concat([Buffer.from(head.buffer), Buffer.from(cols.buffer), Buffer.from(ints.buffer)]));
  try {
    const out = execFileSync(venvPythonExecutable(), [join(PROJECT_ROOT, 'bench', 'stats_numpy.py'), file], { encoding: 'utf8', maxBuffer: 1 << 20 });
    return JSON.parse(out.trim().split('\n').pop()!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ours on exactly the numpy leg's work: every statistic's interval and the paired-difference intervals (no McNemar, Holm or tie-aware rows). */
function sameWork(): { wall_s: number; cpu_s: number } {
  const w = performance.now();
  const c = process.cpuUsage();
  const { estimates, replicates } = estimateAll(specs.n, specs.stats, { replicates: R, seed: SEED, alpha: 0.05 });
  const est = new Map(estimates.map((e) => [e.key, e.estimate]));
  const ids = configs.map((x) => x.config_id);
  for (const metric of PAIRWISE_METRICS) {
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const a = statKey(ids[i], metric);
        const b = statKey(ids[j], metric);
        pairedBootstrapDifference(est.get(a)!, est.get(b)!, replicates.get(a)!, replicates.get(b)!, 0.05);
      }
    }
  }
  return { wall_s: (performance.now() - w) / 1000, cpu_s: cpuSeconds(c) };
}

// Alternated, twice each, so both legs see the same neighbours on a shared machine; the better of each is kept.
const legs = { ours: [] as { wall_s: number; cpu_s: number }[], numpy: [] as { wall_s: number; cpu_s: number; numpy: string }[] };
for (let k = 0; k < 2; k++) {
  legs.ours.push(sameWork());
  legs.numpy.push(numpyLeg());
}
const best = <T extends { cpu_s: number }>(xs: T[]) => xs.reduce((a, b) => (b.cpu_s < a.cpu_s ? b : a));
const ours = best(legs.ours);
const np = best(legs.numpy);
console.log(`same work as the numpy leg (intervals of every statistic and of every paired difference), best of 2: ours ${ours.cpu_s.toFixed(2)} s CPU (${ours.wall_s.toFixed(2)} s wall); numpy ${np.numpy} ${np.cpu_s.toFixed(2)} s CPU (${np.wall_s.toFixed(2)} s wall; its own generator)`);
console.log(`ours vs numpy: ${(np.cpu_s / ours.cpu_s).toFixed(2)}× CPU (>= 1: at least as fast), ${(np.wall_s / ours.wall_s).toFixed(2)}× wall`);
