// The repository report opens at its answer: the best configuration with its pass rate and interval, every
// configuration's pass rate with a Wilson interval, failures by boundary as a plot, the details collapsed below;
// and it fits a phone's width (headless Chromium at 390 and 1440 px, bounding boxes of the plot's labels).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { aggregate } from '../../core/repo/aggregate.ts';
import { rankedConfigurations, renderReport, wilsonInterval } from '../../core/repo/report.ts';
import type { CaseResult } from '../../schemas/repoIndex.ts';

const CHROMIUM = '/usr/bin/chromium';

/** A result with only what the aggregates and the report read. */
function result(retriever: string, i: number, passed: boolean, diagnosis: string, rr: number): CaseResult {
  return {
    case_id: `case-${String(i).padStart(3, '0')}`, retriever, query: `where is thing ${i}`, passed, diagnosis: passed ? 'passed' : diagnosis,
    required_evidence: passed, hit: passed, reciprocal_rank: rr, group_recall: passed ? 1 : 0, forbidden_chunk_ids: [], revision_mismatches: [],
    context_lines: 40, context_tokens: 400, first_relevant_rank: passed ? 1 : null, group_diagnoses: [], query_class: 'exact_identifier', language: 'typescript', area: 'core', split: 'test', context: {},
  } as unknown as CaseResult;
}

// 20 cases each: the hybrid passes 15, BM25 passes 12 (4 ranked below the cutoff, 4 never candidates), a long-named one 12.
const LONG = 'hybrid_rrf(bm25+symbol+dense:local-all-minilm-l6-v2)+ctx+rerank';
const results: CaseResult[] = [];
for (let i = 0; i < 20; i++) {
  results.push(result(LONG, i, i < 15, i % 2 ? 'demoted_by_reranker' : 'not_chunked', i < 15 ? 1 : 0));
  results.push(result('bm25', i, i < 12, i < 16 ? 'ranked_below_cutoff' : 'not_a_candidate', i < 12 ? 0.5 : 0));
  results.push(result('bm25+ctx', i, i < 12, 'not_a_candidate', i < 12 ? 0.6 : 0));
}

test('Wilson interval: inside [0, 1], not zero-width at the edges, against a textbook value', () => {
  const [lo, hi] = wilsonInterval(15, 20);
  // 15/20 at 95%: [0.531, 0.888] (Wilson 1927; e.g. Newcombe 1998, method 3).
  assert.ok(Math.abs(lo - 0.5313) < 5e-4 && Math.abs(hi - 0.8881) < 5e-4, `${lo} ${hi}`);
  const [lo0, hi0] = wilsonInterval(0, 10);
  assert.equal(lo0, 0);
  assert.ok(hi0 > 0.2 && hi0 < 0.35);
  assert.deepEqual(wilsonInterval(0, 0), [0, 1]);
});

test('the page leads with the best configuration and its interval, then failures by boundary; details collapsed', () => {
  const aggregates = aggregate(results);
  assert.equal(rankedConfigurations(aggregates)[0].retriever, LONG);
  // Tie on pass rate (bm25, bm25+ctx: 12 of 20): the higher MRR first.
  assert.deepEqual(rankedConfigurations(aggregates).map((a) => a.retriever), [LONG, 'bm25+ctx', 'bm25']);
  const html = renderReport({ title: 'repo eval', meta: { revision: 'abc' }, aggregates, results, refused: [] });
  const at = (s: string) => html.indexOf(s);
  assert.ok(at('id="best"') > 0 && at('id="best"') < at('id="failures-by-boundary"') && at('id="failures-by-boundary"') < at('Aggregates per slice'));
  assert.match(html, /<b>hybrid_rrf\(bm25\+symbol\+dense:local-all-minilm-l6-v2\)\+ctx\+rerank<\/b> passes 75\.0% <span class="ci">\[53\.1%, 88\.8%\]<\/span> of 20 cases/);
  // The plot: one row per configuration that fails, one segment per boundary it fails at.
  assert.equal((html.match(/data-segment="bm25\|ranked_below_cutoff"/g) ?? []).length, 1);
  assert.equal((html.match(/data-segment="bm25\|not_a_candidate"/g) ?? []).length, 1);
  assert.equal((html.match(/data-segment="bm25\|not_chunked"/g) ?? []).length, 0);
  assert.match(html, /<details><summary>Aggregates per slice/);
  assert.match(html, /<details><summary>Failures \(21\)<\/summary>/);
});

describe('the repository report in headless Chromium', () => {
  let dir: string;
  let browser: Browser;
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run \`node infra/bootstrap.mjs\` as root`);
    dir = mkdtempSync(join(tmpdir(), 'repo-layout-'));
    writeFileSync(join(dir, 'report.html'), renderReport({ title: 'repo eval', meta: { revision: 'abc' }, aggregates: aggregate(results), results, refused: [] }));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });
  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  for (const width of [390, 1440]) {
    test(`${width} px: the answer on the first screen, the page no wider than the window, no clipped label`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      try {
        await page.goto(pathToFileURL(join(dir, 'report.html')).href);
        const top = await page.$eval('p.answer', (el) => el.getBoundingClientRect().top);
        assert.ok(top < 800, `the answer starts at ${top} px`);
        assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= width);
        const clipped = await page.$$eval('svg[data-chart] text', (texts) =>
          texts.flatMap((t) => {
            const box = (t as SVGElement).ownerSVGElement!.getBoundingClientRect();
            const r = t.getBoundingClientRect();
            return r.width === 0 || (r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1) ? [] : [t.textContent];
          }),
        );
        assert.deepEqual(clipped, []);
        assert.equal(await page.locator('details[open]').count(), 0);
      } finally {
        await page.close();
      }
    });
  }
});
