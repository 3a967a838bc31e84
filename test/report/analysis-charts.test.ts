import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { buildHtml } from '../../core/report/html.ts';
import { buildDrilldown } from '../../core/report/drilldown.ts';
import { dotRows, levelLines, niceTicks } from '../../core/report/analysisCharts.ts';
import { venvPythonExecutable } from '../../activities/python/interpreter.ts';
import type { QueryRecord, CorpusRecord } from '../../schemas/benchmark.ts';
import { CORPUS, QUERIES } from '../scoring/fixtures/tinyBenchmark.ts';
import { analysesOf, scoredConfigs, tinyStatistics } from './fixtures/scoredTiny.ts';

interface ParsedChart {
  id: string;
  ticksX: [number, number][];
  ticksY: [number, number][];
  points: { key: string; series: string; value: number; cx: number; cy: number; fill: string }[];
}

/**
 * Parses every analysis chart of the page with Python's ElementTree (an independent, strict XML parser: a
 * malformed SVG fails here): per chart, its axis ticks (value, pixel) and its points (value attribute, pixel).
 */
function parseCharts(html: string): ParsedChart[] {
  const svgs = [...html.matchAll(/<svg data-chart="(density-|resolution-|second-stage|edit-position)[\s\S]*?<\/svg>/g)].map((m) => m[0]);
  const py = `
import json, sys, xml.etree.ElementTree as ET
out = []
for s in json.load(sys.stdin):
    root = ET.fromstring(s)
    ns = "{http://www.w3.org/2000/svg}"
    c = {"id": root.get("data-chart"), "ticksX": [], "ticksY": [], "points": []}
    for el in root.iter():
        if el.get("data-tick-x") is not None:
            c["ticksX"].append([float(el.get("data-tick-x")), float(el.get("x1"))])
        if el.get("data-tick-y") is not None:
            c["ticksY"].append([float(el.get("data-tick-y")), float(el.get("y1"))])
        if el.tag == ns + "circle" and el.get("data-point") is not None:
            c["points"].append({"key": el.get("data-point"), "series": el.get("data-series"), "value": float(el.get("data-value")),
                                "cx": float(el.get("cx")), "cy": float(el.get("cy")), "fill": el.get("fill")})
    out.append(c)
print(json.dumps(out))
`;
  return JSON.parse(execFileSync(venvPythonExecutable(), ['-c', py], { input: JSON.stringify(svgs), encoding: 'utf8' })) as ParsedChart[];
}

/** The pixel→value map of an axis, from its two outermost ticks (a straight line through all of them is checked). */
function axisMap(ticks: [number, number][]): (px: number) => number {
  assert.ok(ticks.length >= 2, 'an axis with at least two ticks');
  const [[v0, p0], [v1, p1]] = [ticks[0], ticks[ticks.length - 1]];
  const f = (px: number) => v0 + ((px - p0) * (v1 - v0)) / (p1 - p0);
  for (const [v, p] of ticks) assert.ok(Math.abs(f(p) - v) < 1e-3, `tick ${v} off the line`);
  return f;
}

/** The first number of a table cell (`0.500 [0.250, 0.750]`, `≥ 0.400 [...]`, `1 (50.0%)`). */
const firstNumber = (cell: string) => Number(/-?\d+(\.\d+)?/.exec(cell)![0]);

function tableCells(html: string, id: string): Map<string, string[]> {
  const t = new RegExp(`<table class="t" id="${id.replace(/[.*+?^${}()|[\]\\@]/g, '\\$&')}">([\\s\\S]*?)</table>`).exec(html);
  assert.ok(t, `table ${id}`);
  const rows = new Map<string, string[]>();
  for (const m of t[1].matchAll(/<tr data-row="([^"]*)">([\s\S]*?)<\/tr>/g)) {
    rows.set(m[1].replace(/&amp;/g, '&'), [...m[2].matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1].replace(/&amp;/g, '&').replace(/&#39;/g, "'")));
  }
  return rows;
}

test('report.html plots the four analyses: every point sits where its value is on the axis, and equals the table next to it', () => {
  const configs = scoredConfigs();
  const stats = tinyStatistics(configs);
  const analyses = analysesOf(configs, stats);
  const html = buildHtml({
    run: 'tiny',
    stats,
    canonicalRanks: Object.fromEntries(configs.map((c) => [c.config_id, c.queries.map((q) => q.metrics.canonical_rank)])),
    drilldown: buildDrilldown(QUERIES as unknown as QueryRecord[], CORPUS as unknown as CorpusRecord[], configs),
    failed: [],
    analyses,
  });
  const charts = new Map(parseCharts(html).map((c) => [c.id, c]));
  // One density plot per configuration, one resolution plot per metric, one each for the second stage and edit position.
  assert.deepEqual([...charts.keys()].sort(), ['density-canonical-first', 'density-toy', 'density-toy-b', 'edit-position', 'resolution-exec@1', 'resolution-exec@10', 'second-stage']);
  let checked = 0;

  for (const t of analyses.density) {
    const c = charts.get(`density-${t.config_id}`)!;
    const y = axisMap(c.ticksY);
    const x = axisMap(c.ticksX);
    const table = tableCells(html, `density-table-${t.config_id}`);
    const col = { 'exec@1_ta': 2, [`execp@${t.k}_ta`]: 3, deception_rate: 4 } as Record<string, number>;
    // deception_rate has no value with no twin kept: 5 + 5 + 4 points.
    assert.equal(c.points.length, 14);
    for (const p of c.points) {
      const twins = Number(p.key.split('|')[2]);
      assert.ok(Math.abs(y(p.cy) - p.value) < 2e-3, `${p.key}: drawn at ${y(p.cy)}, value ${p.value}`);
      assert.ok(Math.abs(x(p.cx) - twins) < 1e-2, `${p.key}: x`);
      const cell = table.get(String(twins))![col[p.series]];
      assert.ok(Math.abs(firstNumber(cell) - p.value) <= 5e-4, `${p.key}: table says ${cell}, plot ${p.value}`);
      checked++;
    }
  }

  for (const metric of ['exec@1', 'exec@10']) {
    const c = charts.get(`resolution-${metric}`)!;
    const x = axisMap(c.ticksX);
    const table = tableCells(html, `resolution-table-${metric}`);
    const rows = analyses.resolution.filter((r) => r.metric === metric);
    assert.equal(c.points.length, rows.length);
    for (const p of c.points) {
      const pair = p.key.split('|')[0];
      const cells = table.get(pair)!;
      assert.ok(Math.abs(x(p.cx) - p.value) < 2e-3, `${p.key}: drawn at ${x(p.cx)}, value ${p.value}`);
      assert.ok(Math.abs(firstNumber(cells[2]) - p.value) <= 5e-4, `${p.key}: table ${cells[2]}`);
      // Hollow exactly when the table says the bootstrap does not resolve it.
      assert.equal(p.fill === 'white', cells[3] === 'no', `${p.key}: fill ${p.fill}, resolved ${cells[3]}`);
      checked++;
    }
  }

  const ss = charts.get('second-stage')!;
  const xs = axisMap(ss.ticksX);
  const ssTable = tableCells(html, 'second-stage-table');
  const ssCol = (series: string) => (series.startsWith('exec@1 after') ? 2 : series === 'exec@1' ? 1 : 3);
  assert.equal(ss.points.length, analyses.secondStage.length * 3);
  for (const p of ss.points) {
    const cell = ssTable.get(p.key.split('|')[0])![ssCol(p.series)];
    assert.ok(Math.abs(xs(p.cx) - p.value) < 2e-3 && Math.abs(firstNumber(cell) - p.value) <= 5e-4, `${p.key}: ${cell} vs ${p.value} at ${xs(p.cx)}`);
    checked++;
  }

  const ep = charts.get('edit-position')!;
  const xe = axisMap(ep.ticksX);
  const epTable = tableCells(html, 'edit-position-table');
  for (const p of ep.points) {
    const config = p.key.split(' (')[0];
    const cells = epTable.get(config)!;
    assert.ok(Math.abs(xe(p.cx) - p.value) < 2e-3, `${p.key}: x`);
    if (p.series.startsWith('edit unseen')) {
      const [unseen, twins] = [firstNumber(cells[3]), Number(cells[2])];
      assert.ok(Math.abs(unseen / twins - p.value) < 1e-9, `${p.key}: unseen share`);
    } else {
      const cell = cells[p.series.endsWith('(all)') ? 4 : 5];
      assert.ok(Math.abs(firstNumber(cell) - p.value) <= 5e-4, `${p.key}: ${cell} vs ${p.value}`);
    }
    checked++;
  }
  assert.ok(checked >= 50, `${checked} points checked`);
});

test('chart helpers: round ticks, values outside the axis clamp to its ends, a missing value is not drawn', () => {
  assert.deepEqual(niceTicks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks(-0.15, 0.15), [-0.15, -0.1, -0.05, 0, 0.05, 0.1, 0.15]);
  const nan = { estimate: NaN, ci_low: null, ci_high: null, support: 0 } as never;
  const one = { estimate: 0.5, ci_low: 0.25, ci_high: 0.75, support: 4 } as never;
  const svg = levelLines('x', 'x', [0, 1], 'twins', [{ name: 'a', values: [nan, one] }]);
  assert.equal(svg.match(/<circle/g)!.length, 1);
  assert.match(svg, /data-value="0.5"/);
  const rows = dotRows('d', [{ label: 'r', points: [{ estimate: 2, ci_low: null, ci_high: null }] }], ['s'], { lo: 0, hi: 1, title: 't' });
  // Clamped to the right end of the axis (x = labelW + plotW), but the value attribute keeps the truth.
  assert.match(rows, /data-value="2" cx="610.0"/);
});
