/**
 * report.md says what changes every number in it (issue 37: only summary.json did): a partial import that narrowed
 * every configuration to the queries it covers, and queries taken from docstrings that were removed from the code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildMarkdown } from '../../core/report/markdown.ts';
import type { StatisticsResult } from '../../core/report/statistics.ts';

const est = (v: number) => ({ key: '', estimate: v, ci_low: v - 0.1, ci_high: v + 0.1, support: 3 });
const stats: StatisticsResult = {
  settings: { replicates: 100, seed: 1, alpha: 0.05 },
  n_queries: 3,
  configs: ['a', 'b'],
  bug_types: [],
  domains: [],
  estimates: Object.fromEntries(['a', 'b'].map((c) => [c, new Proxy({} as Record<string, ReturnType<typeof est>>, { get: (_, k) => (typeof k === 'string' ? est(0.5) : undefined) })])),
  pairwise: [],
  stable: [],
};

test('report.md names the partial import and the removed docstrings; says nothing when neither applies', () => {
  const md = buildMarkdown(stats, { run: 'r', failed: [], rejections: 0, subset: { n: 3, of: 10, by: ['imp'] }, docstrings: { removed: 2, kept: 1 } });
  assert.match(md, /Every configuration is scored on the 3 of 10 benchmark queries that the partial import `imp` covers: these numbers are not comparable/);
  assert.match(md, /2 queries were taken from their code's docstring, which was removed from the snippets/);
  const plain = buildMarkdown(stats, { run: 'r', failed: [], rejections: 0 });
  assert.doesNotMatch(plain, /partial import|docstring, which was removed/);
});
