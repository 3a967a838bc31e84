import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeStatistics } from '../../core/report/statistics.ts';
import { headlineRows, headlineVerdict, headlineNote, sortedConfigs } from '../../core/report/headline.ts';
import { settledDiscordant, stablePairwise } from '../../core/stats/stablePairwise.ts';
import { mcnemarExact } from '../../core/stats/mcnemar.ts';
import type { ConfigScores, QueryScore } from '../../core/report/types.ts';
import { METRICS, type MetricName } from '../../core/metrics/per_query.ts';

/** A query with only exec@1 (hash order) and exec@1_ta set; the rest zero. */
function q(i: number, exec1: 0 | 1, ta: number): QueryScore {
  const m = {} as Record<MetricName, number>;
  for (const name of METRICS) m[name] = 0;
  m['exec@1'] = exec1;
  m['exec@1_ta'] = ta;
  return {
    query_id: `q${i}`,
    domain: 'd',
    metrics: m,
    deception: { has_distractor: 1, deceived: 0, tied: 0, rank1_miss: exec1 === 1 ? 0 : 1, rank1_own_distractor: 0, pref_wins: 1, pref_pairs: 2, by_bug_type: {} },
  };
}

const N = 40;
/**
 * "lucky" ties its canonical with four twins on q10..q29 and the hash happened to put the canonical first every
 * time (exec@1 1, exec@1_ta 1/5); it surely passes q0..q9 and surely fails q30..q39: exec@1 0.75, exec@1_ta 0.35.
 * "steady" has no ties and passes q0..q13 and q30..q39: exec@1 = exec@1_ta = 0.60.
 */
const lucky: ConfigScores = { config_id: 'lucky', queries: Array.from({ length: N }, (_, i) => (i < 10 ? q(i, 1, 1) : i < 30 ? q(i, 1, 0.2) : q(i, 0, 0))) };
const steadyPass = (i: number) => i < 14 || i >= 30;
const steady: ConfigScores = { config_id: 'steady', queries: Array.from({ length: N }, (_, i) => q(i, steadyPass(i) ? 1 : 0, steadyPass(i) ? 1 : 0)) };
const settings = { replicates: 1000, seed: 5, alpha: 0.05 };

test('settled discordant counts leave out every query a tie order could change', () => {
  assert.deepEqual(settledDiscordant([1, 0, 1, 0.2, 1, 0], [0, 1, 1, 0, 0.5, 0]), { b: 1, c: 1, unsettled: 2 });
  assert.throws(() => settledDiscordant([1], [1, 0]), /lengths differ/);
  // lucky vs steady: both settled on q0..q9 (both pass) and q30..q39 (steady passes): b = 0, c = 10, 20 unsettled.
  const dc = settledDiscordant(lucky.queries.map((x) => x.metrics['exec@1_ta']), steady.queries.map((x) => x.metrics['exec@1_ta']));
  assert.deepEqual(dc, { b: 0, c: 10, unsettled: 20 });
  const rows = stablePairwise(['lucky', 'steady'], ['exec@1_ta'], {
    estimate: (c) => (c === 'lucky' ? 0.35 : 0.6),
    replicates: () => new Float64Array([0.5, 0.5]),
    binary: (c) => (c === 'lucky' ? lucky : steady).queries.map((x) => x.metrics['exec@1_ta']),
  });
  assert.equal(rows.length, 1);
  assert.equal(rows[0].p_value, mcnemarExact(0, 10).p_value); // 2 / 2^10
  assert.equal(rows[0].p_holm, rows[0].p_value);
  assert.equal(rows[0].unsettled, 20);
});

test('the headline crowns the configuration that survives the toss, not the one the hash favoured', () => {
  const s = computeStatistics([lucky, steady], settings);
  assert.equal(s.estimates.lucky['exec@1'].estimate, 0.75);
  assert.ok(Math.abs(s.estimates.lucky['exec@1_ta'].estimate - 0.35) < 1e-12);
  // Hash-order exec@1 would rank lucky first; the hash-order McNemar (16 vs 10 discordant) separates nobody.
  const hash = s.pairwise.find((r) => r.metric === 'exec@1')!;
  assert.deepEqual([hash.b, hash.c], [16, 10]);
  assert.ok(hash.p_holm! > 0.05);
  assert.deepEqual(sortedConfigs(s), ['steady', 'lucky']);
  assert.deepEqual(headlineVerdict(s), { leader: 'steady', winner: 'steady', close: [] });
  const rows = headlineRows(s);
  assert.deepEqual(rows.map((r) => [r.config, r.letter, r.winner]), [['steady', 'a', true], ['lucky', 'b', false]]);
  assert.deepEqual(rows[0].cells.find((c) => c.metric === 'exec@1_ta')!.beats, ['b']);
  assert.deepEqual(rows[0].cells.find((c) => c.metric === 'exec@1')!.beats, []);
  assert.match(headlineNote(s), /winner: steady \(exec@1_ta 0\.600; hash-order exec@1 0\.600, what a production system returns\)/);
});

test('leaders that are not separated: no clear winner, and the close ones are named', () => {
  const twin: ConfigScores = { config_id: 'steady-twin', queries: steady.queries };
  const s = computeStatistics([lucky, steady, twin], settings);
  const v = headlineVerdict(s);
  assert.equal(v.winner, null);
  assert.equal(v.leader, 'steady'); // equal values: config id decides the order, not the verdict
  assert.deepEqual(v.close, ['steady-twin']);
  assert.ok(headlineRows(s).every((r) => !r.winner));
  assert.match(headlineNote(s), /no clear winner: the leader steady .* is not separated from steady-twin/);
  // A single configuration is not called a winner over nobody.
  const alone = computeStatistics([steady], settings);
  assert.match(headlineNote(alone), /^Sorted by the tie-aware exec@1_ta; one configuration: steady \(exec@1_ta 0\.600/);
  // Without tie-stable comparisons (a result built before them) nobody is crowned.
  assert.equal(headlineVerdict({ ...s, stable: undefined }).winner, null);
});

test('a tie-heavy leader with no settled discordant query is decided on its tie-aware values, and the note says so', () => {
  // Issue 37: "tied" ties its canonical at rank 1 on every query (exec@1_ta 0.8 each, never settled), so McNemar on
  // settled outcomes has b = c = 0 against "static" (0.2 on q0..q19, 0 after) and could never separate them,
  // though every bootstrap replicate puts "tied" ahead.
  const tied: ConfigScores = { config_id: 'tied', queries: Array.from({ length: N }, (_, i) => q(i, 1, 0.8)) };
  const stat: ConfigScores = { config_id: 'static', queries: Array.from({ length: N }, (_, i) => q(i, 0, i < 20 ? 0.2 : 0)) };
  const s = computeStatistics([tied, stat], settings);
  const row = s.stable!.find((r) => r.metric === 'exec@1_ta')!;
  assert.deepEqual([row.b, row.c, row.unsettled, row.test], [0, 0, N, 'paired_bootstrap_ta']);
  assert.ok(row.ci_low! > 0, 'every replicate has tied ahead');
  assert.equal(row.p_value, 2 / (settings.replicates + 1)); // (1 + 0 replicates at or below 0) / (1 + R), two-sided
  assert.deepEqual(headlineVerdict(s), { leader: 'tied', winner: 'tied', close: [] });
  assert.match(headlineNote(s), /McNemar cannot decide one pair on exec@1_ta: .* \(tied vs static \(0 settled discordant, 40 unsettled\)\)\. It was tested on the tie-aware per-query values instead/);
  // A pair McNemar can decide keeps McNemar: lucky vs steady has 10 settled discordant queries.
  const other = computeStatistics([lucky, steady], settings).stable!.find((r) => r.metric === 'exec@1_ta')!;
  assert.equal(other.test, 'mcnemar_settled');
  assert.doesNotMatch(headlineNote(computeStatistics([lucky, steady], settings)), /McNemar cannot decide/);
});
