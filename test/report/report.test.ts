import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedSpan, lineDiff, unifiedDiff } from '../../core/report/diff.ts';
import { buildMarkdown } from '../../core/report/markdown.ts';
import { rankBucket } from '../../core/report/html.ts';
import { fmtP, mdTable } from '../../core/report/format.ts';
import type { StatisticsResult } from '../../core/report/statistics.ts';

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

test('report.md carries the headline CIs, deception tables, significance rows and the seed', () => {
  const est = (v: number) => ({ key: '', estimate: v, ci_low: v - 0.1, ci_high: v + 0.1, support: 4 });
  const stats: StatisticsResult = {
    settings: { replicates: 5000, seed: 42, alpha: 0.05 },
    n_queries: 4,
    configs: ['a', 'b'],
    bug_types: ['off_by_one'],
    domains: ['math'],
    estimates: Object.fromEntries(
      ['a', 'b'].map((c, i) => [
        c,
        new Proxy({} as Record<string, ReturnType<typeof est>>, { get: (_, k) => (typeof k === 'string' ? est(i ? 0.25 : 0.5) : undefined) }),
      ]),
    ),
    pairwise: [
      { metric: 'exec@1', config_a: 'a', config_b: 'b', value_a: 0.5, value_b: 0.25, diff: 0.25, ci_low: 0.0, ci_high: 0.5, b: 3, c: 1, p_value: 0.625, p_holm: 0.625 },
      { metric: 'ndcg@10', config_a: 'a', config_b: 'b', value_a: 0.5, value_b: 0.25, diff: 0.25, ci_low: 0.1, ci_high: 0.4, b: null, c: null, p_value: null, p_holm: null },
    ],
  };
  const md = buildMarkdown(stats, { run: 'r1', failed: [{ config_id: 'x', error: 'boom' }], rejections: 2 });
  assert.match(md, /seed 42/);
  assert.match(md, /\| a \| 0\.500 \[0\.400, 0\.600\]/);
  assert.match(md, /## Deception by bug type[\s\S]*off_by_one/);
  assert.match(md, /\| config \| exec@1 \| exec@10 \| execp@10 \| ndcg@10 \| rr_exec@10 \| canonical_rank \| deception_rate \| tie_rate \|/);
  assert.match(md, /## Deception by domain[\s\S]*math/);
  assert.match(md, /\| a \| b \| 0\.500 \| 0\.250 \| 0\.250 \[0\.000, 0\.500\] \| 3 \| 1 \| 0\.6250 \| 0\.6250 \|/);
  assert.match(md, /### ndcg@10\n\n\| A \| B \| value A \| value B \| A − B \[CI\] \|\n/);
  assert.match(md, /`x` \(boom\)/);
  assert.match(md, /2 benchmark records were rejected/);
});
