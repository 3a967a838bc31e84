import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { rankDense } from '../../core/ranking/rank.ts';
import { scoreQuery } from '../../core/metrics/score_query.ts';
import { computeStatistics } from '../../core/report/statistics.ts';
import { buildDrilldown } from '../../core/report/drilldown.ts';
import { buildHtml } from '../../core/report/html.ts';
import { CORPUS, QUERIES, TOY_WEIGHTS, CANONICAL_FIRST } from '../scoring/fixtures/tinyBenchmark.ts';
import type { QueryRecord, CorpusRecord } from '../../schemas/benchmark.ts';

const CHROMIUM = '/usr/bin/chromium';

/** Scores the tiny benchmark without an oracle: here only the rendering is under test ("canonical passes"). */
function scoredConfigs() {
  const ids = CORPUS.map((c) => c.corpus_id);
  const dims = ids.length;
  const C = { rows: dims, dim: dims, data: Float32Array.from({ length: dims * dims }, (_, i) => (i % (dims + 1) === 0 ? 1 : 0)) };
  const rq = QUERIES.map((q) => ({ query_id: q.query_id, text: q.query, correct: [ids.indexOf(q.correct_corpus_ids[0])], distractors: q.distractor_corpus_ids.map((d) => ids.indexOf(d)) }));
  return Object.entries({ toy: TOY_WEIGHTS, 'canonical-first': CANONICAL_FIRST, 'toy-b': TOY_WEIGHTS }).map(([config_id, w]) => {
    const Q = { rows: QUERIES.length, dim: dims, data: Float32Array.from(QUERIES.flatMap((q) => ids.map((id) => w[q.query_id][id] ?? 0))) };
    const rankings = rankDense(rq, Q, C, ids);
    return {
      config_id,
      queries: rankings.map((r, qi) =>
        scoreQuery(r, {
          corpusIds: ids,
          bugTypeOf: (c) => CORPUS[c].bug_type,
          domain: QUERIES[qi].domain,
          relevant: new Set(QUERIES[qi].correct_corpus_ids),
          verdict: (c) => ({ passed: CORPUS[c].is_canonical && CORPUS[c].function_name === QUERIES[qi].function_name, outcomes: ['pass'] }),
        }),
      ),
    };
  });
}

describe('report.html in a real headless Chromium', () => {
  let dir: string;
  let ctx: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const requests: string[] = [];
  const configs = scoredConfigs();
  const stats = computeStatistics(configs, { replicates: 300, seed: 3, alpha: 0.05 });

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run \`node infra/bootstrap.mjs\` as root (step 50-chromium installs Debian's chromium)`);
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-html-'));
    const html = buildHtml({
      run: 'tiny <run>',
      stats,
      canonicalRanks: Object.fromEntries(configs.map((c) => [c.config_id, c.queries.map((q) => q.metrics.canonical_rank)])),
      drilldown: buildDrilldown(QUERIES as unknown as QueryRecord[], CORPUS as unknown as CorpusRecord[], configs),
      failed: [{ config_id: 'broken', error: 'no vector for q_0004' }],
    });
    const file = join(dir, 'report.html');
    writeFileSync(file, html);
    ctx = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    page = ctx.pages()[0] ?? (await ctx.newPage());
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 15_000 });
  });
  after(async () => {
    await ctx?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('opens offline: no request leaves the file, no script errors', () => {
    assert.deepEqual(problems, []);
    assert.ok(requests.every((u) => u.startsWith('file:') || u.startsWith('data:')), requests.join(', '));
  });

  test('the plots are rendered with one mark per datum', async () => {
    const count = (sel: string) => page.locator(sel).count();
    assert.equal(await count('svg[data-chart="exec-bars"] rect[data-bar]'), 3 * 2);
    assert.equal(await count('svg[data-chart="exec-bars"] path[data-ci]'), 3 * 2);
    assert.ok((await count('svg[data-chart="canonical-rank"] rect[data-segment]')) >= 3);
    assert.equal(await count('svg[data-chart="deception-heatmap"] g[data-cell]'), 3 * stats.bug_types.length);
    assert.equal(await count('svg[data-chart="pairwise-exec@1"] g[data-cell]'), 3 * 3);
    // Laid out, not just present: every chart has a real size on the page.
    const sizes = await page.$$eval('svg[data-chart]', (els) => els.map((e) => (e as SVGSVGElement).getBBox().width));
    assert.equal(sizes.length, 7);
    assert.ok(sizes.every((w) => w > 50), sizes.join(','));
    // exec@1 bar of canonical-first is full width, toy's is half of it.
    const widths = await page.$$eval('svg[data-chart="exec-bars"] rect[data-bar]', (els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-bar'), Number(e.getAttribute('width'))])));
    assert.ok(Math.abs(widths['toy|exec@1'] * 2 - widths['canonical-first|exec@1']) < 1);
  });

  test('drill-down: ranked snippets with pass/fail, code on click, canonical-vs-distractor diffs', async () => {
    await page.selectOption('#dd-query', '0');
    await page.selectOption('#dd-config', '0'); // toy
    const rows = page.locator('#dd-hits tr.dd-hit');
    assert.equal(await rows.count(), 9);
    assert.equal(await rows.nth(0).locator('td').nth(1).textContent(), 'q_0001_d1');
    assert.equal(await rows.nth(0).locator('.fail').count(), 1);
    assert.equal(await rows.nth(1).locator('.pass').count(), 1);
    await rows.nth(1).click();
    assert.match((await page.locator('#dd-code').textContent()) ?? '', /def larger\(a, b\):/);
    const diffs = page.locator('pre.dd-diff');
    assert.equal(await diffs.count(), 2);
    const first = (await diffs.nth(0).textContent()) ?? '';
    assert.match(first, /^- {5}return a if a >= b else b$/m);
    assert.match(first, /^\+ {5}return a if a <= b else b$/m);
    await page.selectOption('#dd-config', '1'); // canonical-first
    assert.equal(await page.locator('#dd-hits tr.dd-hit').nth(0).locator('td').nth(1).textContent(), 'q_0001_canonical');
    await page.fill('#dd-filter', 'vowels');
    assert.equal(await page.locator('#dd-query option').count(), 1);
    assert.match((await page.locator('#dd-text').textContent()) ?? '', /q_0002/);
  });
});
