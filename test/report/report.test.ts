import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedSpan, lineDiff, unifiedDiff } from '../../core/report/diff.ts';
import { buildMarkdown } from '../../core/report/markdown.ts';
import { rankBucket } from '../../core/report/html.ts';
import { fmtP, mdTable } from '../../core/report/format.ts';
import type { StatisticsResult } from '../../core/report/statistics.ts';
import { GLOSSARY } from '../../core/report/glossary.ts';

test('line diff of a single-token mutation: one removal, one addition, context kept', () => {
  const a = 'def f(xs):\n    n = len(xs)\n    return xs[n - 1]\n';
  const b = 'def f(xs):\n    n = len(xs)\n    return xs[n]\n';
  const d = lineDiff(a, b);
  assert.deepEqual(d.map((l) => l.op).join(''), '  -+ ');
  assert.equal(d[2].text, '    return xs[n - 1]');
  assert.equal(d[3].text, '    return xs[n]');
  assert.deepEqual(changedSpan('return xs[n - 1]', 'return xs[n]'), { prefix: 11, a: ' - 1', b: '' });
  assert.equal(unifiedDiff(a, b, 0), '…\n-     return xs[n - 1]\n+     return xs[n]\n…');
  assert.deepEqual(lineDiff('x', 'x'), [{ op: ' ', text: 'x' }]);
  // Insertions and deletions at the ends.
  assert.deepEqual(lineDiff('a\nb', 'b\nc').map((l) => `${l.op}${l.text}`), ['-a', ' b', '+c']);
});

test('canonical-rank buckets', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 10, 11, 100, 101, 4000].map(rankBucket), [0, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
});

test('Markdown tables escape pipes; p-values print small values in exponent form', () => {
  assert.equal(mdTable(['a', 'b'], [['x|y', '1']]), '| a | b |\n| --- | ---: |\n| x\\|y | 1 |');
  assert.equal(fmtP(0.5), '0.5000');
  assert.equal(fmtP(3e-7), '3.0e-7');
  assert.equal(fmtP(null), '–');
});

test('report.md: headline sorted by exec@1_ta, the winner marked only when separated, tie-stable McNemar letters; deception tables, significance rows, glossary, seed', () => {
  const est = (v: number) => ({ key: '', estimate: v, ci_low: v - 0.1, ci_high: v + 0.1, support: 4 });
  // Configurations listed a, b, c; b is best, c second: the headline must reorder them.
  const value: Record<string, number> = { a: 0.25, b: 0.75, c: 0.5 };
  const stats: StatisticsResult = {
    settings: { replicates: 5000, seed: 42, alpha: 0.05 },
    n_queries: 4,
    configs: ['a', 'b', 'c'],
    bug_types: ['off_by_one'],
    domains: ['math'],
    estimates: Object.fromEntries(
      ['a', 'b', 'c'].map((c) => [
        c,
        new Proxy({} as Record<string, ReturnType<typeof est>>, { get: (_, k) => (typeof k === 'string' ? est(value[c]) : undefined) }),
      ]),
    ),
    pairwise: [
      // b beats a significantly on exec@1 (stored as (a, b), value_b > value_a); b vs c is not significant.
      { metric: 'exec@1', config_a: 'a', config_b: 'b', value_a: 0.25, value_b: 0.75, diff: -0.5, ci_low: -0.75, ci_high: -0.25, b: 0, c: 9, p_value: 0.004, p_holm: 0.012 },
      { metric: 'exec@1', config_a: 'b', config_b: 'c', value_a: 0.75, value_b: 0.5, diff: 0.25, ci_low: 0.0, ci_high: 0.5, b: 3, c: 1, p_value: 0.625, p_holm: 0.625 },
      { metric: 'ndcg@10', config_a: 'a', config_b: 'b', value_a: 0.5, value_b: 0.25, diff: 0.25, ci_low: 0.1, ci_high: 0.4, b: null, c: null, p_value: null, p_holm: null },
    ],
    // The tie-stable comparisons the headline's letters and winner come from: b beats a on settled exec@1 outcomes,
    // b vs c is not separated. (A hash-order-only win of b over c would not count: see the exec@1 rows above.)
    stable: [
      { metric: 'exec@1_ta', config_a: 'a', config_b: 'b', value_a: 0.25, value_b: 0.75, diff: -0.5, ci_low: -0.75, ci_high: -0.25, b: 0, c: 9, p_value: 0.004, p_holm: 0.012, unsettled: 0, test: 'mcnemar_settled' },
      { metric: 'exec@1_ta', config_a: 'b', config_b: 'c', value_a: 0.75, value_b: 0.5, diff: 0.25, ci_low: 0.0, ci_high: 0.5, b: 3, c: 1, p_value: 0.625, p_holm: 0.625, unsettled: 2, test: 'paired_bootstrap_ta' },
    ],
  };
  const md = buildMarkdown(stats, { run: 'r1', failed: [{ config_id: 'x', error: 'boom' }], rejections: 2 });
  assert.match(md, /seed 42/);
  const head = md.slice(md.indexOf('## Headline'), md.indexOf('## All metrics'));
  const rows = head.split('\n').filter((l) => /^\| (\*\*|\()/.test(l));
  // b leads but is not separated from c: no star, and the note says so.
  assert.deepEqual(rows.map((l) => l.split(' | ')[0]), ['| (a) b', '| (b) c', '| (c) a']);
  // b's exec@1_ta carries the letter of a (its place in the sorted table: c); its hash-order exec@1 carries none.
  assert.match(rows[0], /^\| \(a\) b \| 0\.750 \[0\.650, 0\.850\] \| 0\.750 \[0\.650, 0\.850\]<sup>c<\/sup> \|/);
  assert.ok(!rows[1].includes('<sup>') && !rows[2].includes('<sup>'));
  assert.match(head, /\| config \| exec@1 \| exec@1_ta \| exec@10 \| execp@10 \| ndcg@10 \| ndcg@10_ta \| rr_exec@10 \| rr_exec@10_ta \| canonical_rank \| deception_rate \| tie_rate \|/);
  assert.match(head, /Sorted by the tie-aware exec@1_ta; no clear winner: the leader b \(exec@1_ta 0\.750; hash-order exec@1 0\.750, what a production system returns\) is not separated from c/);
  assert.match(head, /McNemar cannot decide one pair on exec@1_ta: .*\(b vs c \(4 settled discordant, 2 unsettled\)\)\. It was tested on the tie-aware per-query values instead \(paired bootstrap/);
  // A significant McNemar whose interval still touches 0 does not separate (b vs c: ci_low 0.0).
  const touching: StatisticsResult = { ...stats, stable: stats.stable!.map((r) => (r.config_b === 'c' ? { ...r, b: 9, c: 0, p_value: 0.004, p_holm: 0.012 } : r)) };
  assert.match(buildMarkdown(touching, { run: 'r1', failed: [], rejections: 0 }), /no clear winner/);
  // Once b beats c on settled outcomes with an interval clear of 0 too, b is the winner.
  const separated: StatisticsResult = { ...stats, stable: stats.stable!.map((r) => (r.config_b === 'c' ? { ...r, ci_low: 0.05, b: 9, c: 0, p_value: 0.004, p_holm: 0.012 } : r)) };
  const head2 = buildMarkdown(separated, { run: 'r1', failed: [], rejections: 0 });
  assert.match(head2, /\| \*\*★ \(a\) b\*\* \| 0\.750 \[0\.650, 0\.850\] \| 0\.750 \[0\.650, 0\.850\]<sup>bc<\/sup> \|/);
  assert.match(head2, /winner: b \(exec@1_ta 0\.750/);
  // The order is the tie-aware one: a configuration ahead only in hash order comes second.
  const hashOnly: Record<string, number> = { a: 0.25, b: 0.75, c: 0.5 };
  const flip: StatisticsResult = {
    ...stats,
    estimates: Object.fromEntries(
      ['a', 'b', 'c'].map((c) => [
        c,
        new Proxy({} as Record<string, ReturnType<typeof est>>, { get: (_, k) => (k === 'exec@1' ? est(hashOnly[c]) : typeof k === 'string' ? est(c === 'c' ? 0.8 : value[c]) : undefined) }),
      ]),
    ),
  };
  const rows3 = buildMarkdown(flip, { run: 'r1', failed: [], rejections: 0 }).split('\n').filter((l) => /^\| (\*\*|\()/.test(l));
  assert.deepEqual(rows3.slice(0, 3).map((l) => l.split(' | ')[0]), ['| (a) c', '| (b) b', '| (c) a']);
  assert.match(md, /## Deception by bug type[\s\S]*off_by_one[\s\S]*bug_tie/);
  assert.match(md, /## Deception by domain[\s\S]*math/);
  assert.match(md, /\| b \| c \| 0\.750 \| 0\.500 \| 0\.250 \[0\.000, 0\.500\] \| 3 \| 1 \| 0\.6250 \| 0\.6250 \|/);
  assert.match(md, /### ndcg@10\n\n\| A \| B \| value A \| value B \| A − B \[CI\] \|\n/);
  assert.match(md, /`x` \(boom\)/);
  assert.match(md, /2 benchmark records were rejected/);
  for (const d of GLOSSARY) assert.ok(md.includes(d.text), `report.md lacks the definition of ${d.name}`);
});
