// report.html's layout in a real headless Chromium at a phone, a tablet and a desktop width: it opens at the
// headline (the address stays clean until the reader picks a query), a deep link still opens the drill-down,
// the page is never wider than the window, and no label of any plot is clipped (bounding boxes, not pixels).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { computeStatistics } from '../../core/report/statistics.ts';
import { buildDrilldown } from '../../core/report/drilldown.ts';
import { buildHtml } from '../../core/report/html.ts';
import { CORPUS, QUERIES } from '../scoring/fixtures/tinyBenchmark.ts';
import { analysesOf, scoredConfigs } from './fixtures/scoredTiny.ts';
import type { QueryRecord, CorpusRecord } from '../../schemas/benchmark.ts';

const CHROMIUM = '/usr/bin/chromium';
const WIDTHS = [390, 820, 1280];
/** Widths whose full-page screenshot is taken and checked (a phone, a laptop). */
const SHOTS = [390, 1280];

describe('report.html layout at three widths', () => {
  let dir: string;
  let url: string;
  let browser: Browser;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run \`node infra/bootstrap.mjs\` as root (step 50-chromium installs Debian's chromium)`);
    dir = mkdtempSync(join(tmpdir(), 'execretrieval-layout-'));
    // Long configuration ids, as real ones are (local-all-minilm-l6-v2-int8): short ones hid clipped labels.
    const configs = scoredConfigs().map((c) => ({ ...c, config_id: `local-all-minilm-l6-v2-${c.config_id}` }));
    const stats = computeStatistics(configs, { replicates: 300, seed: 3, alpha: 0.05 });
    const file = join(dir, 'report.html');
    writeFileSync(
      file,
      buildHtml({
        // A long run name and configuration ids are what overflowed a phone's width.
        run: 'a-run-with-a-rather-long-name-2026-12-02',
        stats,
        canonicalRanks: Object.fromEntries(configs.map((c) => [c.config_id, c.queries.map((q) => q.metrics.canonical_rank)])),
        drilldown: buildDrilldown(QUERIES as unknown as QueryRecord[], CORPUS as unknown as CorpusRecord[], configs),
        failed: [],
        analyses: analysesOf(configs, stats),
      }),
    );
    url = pathToFileURL(file).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  });
  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const width of WIDTHS) {
    test(`${width} px: opens at the headline, fits the window, no clipped label`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      try {
        await page.goto(url);
        await page.waitForSelector('body[data-ready="1"]');
        // Opens at the answer: the headline table starts on the first screen and nothing scrolled or rewrote the address.
        assert.equal(await page.evaluate(() => window.scrollY), 0);
        const top = await page.$eval('#headline', (el) => el.getBoundingClientRect().top);
        assert.ok(top < 800, `headline starts at ${top} px`);
        assert.equal(new URL(page.url()).hash, '', 'the address is left as opened');
        // Never wider than the window (wide tables scroll inside their own box).
        const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(pageWidth <= width, `page is ${pageWidth} px wide in a ${width} px window`);
        // Every label of every plot lies inside its plot's box.
        const clipped = await page.$$eval('svg[data-chart] text, svg[data-legend] text', (texts) =>
          texts.flatMap((t) => {
            const svg = (t as SVGElement).ownerSVGElement!;
            const box = svg.getBoundingClientRect();
            const r = t.getBoundingClientRect();
            if (!(t.textContent ?? '').trim() || r.width === 0) return [];
            const inside = r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
            return inside ? [] : [`${svg.getAttribute('data-chart') ?? svg.getAttribute('data-legend')}: "${t.textContent}" at ${Math.round(r.left - box.left)},${Math.round(r.top - box.top)} (${Math.round(r.width)}x${Math.round(r.height)}) in ${Math.round(box.width)}x${Math.round(box.height)}`];
          }),
        );
        assert.deepEqual(clipped, []);
        // Plots scale with their container: none is wider than its box (nothing to scroll sideways to read a value),
        // and at a desktop width none is shrunk below its own size.
        const plots = await page.$$eval('svg[data-chart]', (svgs) =>
          svgs.map((s) => ({ id: s.getAttribute('data-chart'), shown: s.getBoundingClientRect().width, own: Number(s.getAttribute('width')), box: s.parentElement!.clientWidth })),
        );
        assert.ok(plots.length >= 4, `${plots.length} plots`);
        for (const p of plots) {
          assert.ok(p.shown <= p.box + 1, `${p.id}: ${p.shown} px in a ${p.box} px box`);
          if (p.own <= width - 60) assert.ok(Math.abs(p.shown - p.own) < 1, `${p.id}: ${p.shown} px, its own width ${p.own}`);
        }
        // Legends wrap inside their plot: no two legend labels overlap.
        const overlaps = await page.$$eval('svg[data-chart]', (svgs) =>
          svgs.flatMap((s) => {
            const boxes = [...s.querySelectorAll('text[data-legend-item]')].map((t) => ({ t: t.textContent, r: t.getBoundingClientRect() })).filter((b) => b.r.width > 0);
            const out: string[] = [];
            boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
              if (a.r.left < b.r.right - 1 && b.r.left < a.r.right - 1 && a.r.top < b.r.bottom - 1 && b.r.top < a.r.bottom - 1) out.push(`${s.getAttribute('data-chart')}: "${a.t}" / "${b.t}"`);
            }));
            return out;
          }),
        );
        assert.deepEqual(overlaps, []);
        if (SHOTS.includes(width)) {
          // The screenshot of the whole page is the window's width: nothing sticks out to the right.
          const png = await page.screenshot({ fullPage: true, path: join(dir, `report-${width}.png`) });
          assert.equal(png.readUInt32BE(16), width, 'screenshot width (PNG IHDR)');
        }
      } finally {
        await page.close();
      }
    });
  }

  test('a deep link still opens the drill-down at its query and configuration', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    try {
      await page.goto(`${url}#q=q_0003&config=local-all-minilm-l6-v2-canonical-first`);
      await page.waitForSelector('body[data-ready="1"]');
      assert.match((await page.locator('#dd-text').textContent()) ?? '', /q_0003/);
      const top = await page.$eval('#dd-view', (el) => el.getBoundingClientRect().top);
      assert.ok(top >= -1 && top < 800, `drill-down at ${top} px`);
      // Picking another query updates the address (the link to the view).
      await page.selectOption('#dd-query', '0');
      assert.match(page.url(), /#q=q_0001&config=local-all-minilm-l6-v2-canonical-first$/);
    } finally {
      await page.close();
    }
  });
});
