import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeStatistics } from '../../core/report/statistics.ts';
import { buildMarkdown } from '../../core/report/markdown.ts';
import { scoredConfigs } from '../report/fixtures/scoredTiny.ts';

const settings = { replicates: 200, seed: 0, alpha: 0.05 };

test('a benchmark with other languages gets each language\'s block: the same means over its own queries', () => {
  const configs = scoredConfigs().map((c) => ({ ...c, queries: c.queries.map((q, i) => ({ ...q, language: i % 2 === 0 ? 'go' : 'javascript' })) }));
  const s = computeStatistics(configs, settings);
  assert.deepEqual(s.languages, ['go', 'javascript']);
  for (const c of configs) {
    for (const lang of ['go', 'javascript']) {
      const mine = c.queries.filter((q) => q.language === lang);
      const mean = (f: (q: (typeof mine)[number]) => number) => mine.reduce((a, q) => a + f(q), 0) / mine.length;
      assert.equal(s.estimates[c.config_id][`lang:${lang}:exec@1`].estimate, mean((q) => q.metrics['exec@1']));
      assert.equal(s.estimates[c.config_id][`lang:${lang}:ndcg@10`].estimate, mean((q) => q.metrics['ndcg@10']));
      const withD = mine.filter((q) => q.deception.has_distractor);
      assert.equal(s.estimates[c.config_id][`lang:${lang}:deception_rate`].estimate, withD.reduce((a, q) => a + q.deception.deceived, 0) / withD.length);
    }
  }
  const md = buildMarkdown(s, { run: 'mixed', failed: [], rejections: 0 } as unknown as Parameters<typeof buildMarkdown>[1]);
  assert.match(md, /Languages: go, javascript\. The tables pool every query/);
  assert.match(md, /## By language[\s\S]*### exec@1\n\n\| config \| go \| javascript \| pooled \|/);
});

test('a Python-only benchmark: no language anywhere in its statistics (its results keep their bytes)', () => {
  const s = computeStatistics(scoredConfigs(), settings);
  assert.equal(s.languages, undefined);
  assert.ok(Object.keys(s.estimates.toy).every((k) => !k.startsWith('lang:')));
});
