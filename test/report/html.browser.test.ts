import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { computeStatistics } from '../../core/report/statistics.ts';
import { buildDrilldown } from '../../core/report/drilldown.ts';
import { buildHtml } from '../../core/report/html.ts';
import { GLOSSARY } from '../../core/report/glossary.ts';
import { CORPUS, QUERIES } from '../scoring/fixtures/tinyBenchmark.ts';
import { analysesOf, scoredConfigs } from './fixtures/scoredTiny.ts';
import type { QueryRecord, CorpusRecord } from '../../schemas/benchmark.ts';

const CHROMIUM = '/usr/bin/chromium';

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
      analyses: analysesOf(configs, stats),
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
    // 7 charts of the scores, then the analyses': 3 density plots (one per configuration), 2 resolution plots
    // (exec@1, exec@10), the second stage, edit position.
    assert.equal(sizes.length, 7 + 3 + 2 + 1 + 1);
    assert.ok(sizes.every((w) => w > 50), sizes.join(','));
    // Each analysis plot shows its points where they were placed (rendered circles, not only markup).
    const dots = await page.$$eval('svg[data-chart^="density-"] circle[data-point]', (els) => els.map((e) => (e as SVGCircleElement).getBBox().width));
    assert.equal(dots.length, 3 * 14);
    assert.ok(dots.every((w) => w > 5));
    assert.equal(await count('svg[data-chart="second-stage"] circle[data-point]'), 2 * 3);
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

  test('headline: sorted by exec@1_ta, no winner on a handful of queries, letters; the glossary; legends and intervals; the rank axis', async () => {
    const rows = await page.$$eval('#headline tbody tr', (trs) => trs.map((tr) => [tr.getAttribute('data-config'), tr.className, tr.querySelector('td')!.textContent]));
    // canonical-first passes every query at rank 1; toy and toy-b pass half: canonical-first first, but the tiny
    // benchmark's few queries cannot separate it (exact McNemar), so no row is marked and the note says so.
    assert.deepEqual(rows.map((r) => r[0]), ['canonical-first', 'toy', 'toy-b']);
    assert.deepEqual(rows.map((r) => r[1]), ['', '', '']);
    assert.match(rows[0][2] ?? '', /^\(a\) canonical-first/);
    assert.equal(await page.locator('p.note', { hasText: 'no clear winner: the leader canonical-first' }).count(), 1);
    // Pairwise matrix in the same order: row canonical-first − column toy = 1 − 0.5; the mirror cell flips the sign.
    const cell = (i: number, j: number) => page.locator(`svg[data-chart="pairwise-exec@1"] g[data-cell="${i},${j}"] text`).textContent();
    assert.match((await cell(0, 1)) ?? '', /^0\.50/);
    assert.match((await cell(1, 0)) ?? '', /^-0\.50/);
    assert.equal(await page.locator('#glossary dt').count(), GLOSSARY.length);
    assert.match((await page.locator('#glossary').textContent()) ?? '', /strictly above the canonical/);
    assert.equal(await page.locator('svg[data-legend]').count(), 3);
    assert.equal(await page.locator('svg[data-chart="deception-heatmap"] text[data-sub]').count(), 3 * stats.bug_types.length);
    assert.equal(await page.locator('svg[data-chart="canonical-rank"] line[data-tick]').count(), 5);
    assert.ok((await page.locator('svg[data-chart="canonical-rank"] text[data-pct]').count()) >= 3);
  });

  test('drill-down: per-test outcomes, tie marker, deep link, "A passes, B fails" filter', async () => {
    await page.fill('#dd-filter', '');
    await page.selectOption('#dd-query', '0');
    await page.selectOption('#dd-config', '0'); // toy: d1 0.9, canonical 0.8, d2 0.5, then six items at 0 (tied)
    const rows = page.locator('#dd-hits tr.dd-hit');
    const ties = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('.tie') !== null));
    assert.deepEqual(ties, [false, false, false, true, true, true, true, true, true]);
    assert.equal(await rows.nth(0).locator('td.outs .of').count(), 1); // the failing test of d1
    await rows.nth(0).click();
    assert.match((await page.locator('#dd-test-table').textContent()) ?? '', /FAIL: assert f\(2\) == 3/);
    // The view's deep link is in the address and follows the selection.
    assert.match(page.url(), /#q=q_0001&config=toy$/);
    await page.evaluate(() => (location.hash = '#q=q_0003&config=canonical-first'));
    await page.waitForFunction(() => (document.getElementById('dd-text')!.textContent ?? '').includes('q_0003'));
    assert.equal(await page.$eval('#dd-config', (el) => (el as HTMLSelectElement).selectedOptions[0].textContent), 'canonical-first');
    // A = canonical-first passes at rank 1 everywhere; B = toy fails at rank 1 on q_0001 and q_0004.
    await page.selectOption('#dd-a', '1');
    await page.selectOption('#dd-b', '0');
    await page.check('#dd-disc');
    const ids = await page.$$eval('#dd-query option', (os) => os.map((o) => (o.textContent ?? '').split(' ')[0]));
    assert.deepEqual(ids, ['q_0001', 'q_0004']);
    assert.equal(await page.locator('#dd-count').textContent(), '2 queries');
    await page.uncheck('#dd-disc');
    assert.equal(await page.locator('#dd-query option').count(), 4);
    assert.deepEqual(problems, []);
  });
});
