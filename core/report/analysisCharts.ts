import type { StatEstimate } from '../stats/engine.ts';
import type { DensityTable } from './density.ts';
import type { ResolutionRow } from './resolution.ts';
import type { SecondStageRow } from './secondStage.ts';
import type { EditPositionRow } from './editPosition.ts';
import { escapeHtml, fmt } from './format.ts';
import { labelWidth, svgOpen } from './svg.ts';

/**
 * Inline SVG plots of the four analyses (density scaling, rank resolution, second stage, edit position), as
 * strings: pure, nothing fetched. Every plotted value is one element with `data-point` (what it is),
 * `data-series` and `data-value` (the number, full precision), placed on an axis whose ticks carry
 * `data-tick-x` / `data-tick-y` with their value, so a reader (the test) can map a coordinate back to a value
 * and check the geometry against the tables. Missing values (NaN: deception with no twin kept) are not drawn.
 */

const SERIES_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#76b7b2'];
const r1 = (v: number) => v.toFixed(1);
const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

interface Series {
  name: string;
  /** One estimate per x position (NaN / null: not drawn). */
  values: readonly (StatEstimate | null)[];
}

/** Ticks for [lo, hi] at the finest round step (1, 2, 2.5, 5 × 10^n) that gives at most 8 intervals. */
export function niceTicks(lo: number, hi: number): number[] {
  const span = hi - lo || 1;
  let mag = 10 ** Math.floor(Math.log10(span / 10));
  let step = 0;
  while (!step) {
    step = [1, 2, 2.5, 5].map((m) => m * mag).find((st) => span / st <= 8) ?? 0;
    mag *= 10;
  }
  const out: number[] = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + 1e-9; i++) out.push(Number((i * step).toFixed(10)));
  return out;
}

function legend(names: readonly string[], x0: number, y: number): string {
  let x = x0;
  return names
    .map((n, k) => {
      const s = `<rect x="${x}" y="${y - 9}" width="10" height="10" fill="${SERIES_COLORS[k % SERIES_COLORS.length]}"/><text x="${x + 14}" y="${y}">${escapeHtml(n)}</text>`;
      x += 24 + n.length * 7;
      return s;
    })
    .join('');
}

/**
 * Values in [0, 1] against a few categorical x positions (density: twins per query), one line per series,
 * bootstrap intervals as vertical whiskers.
 */
export function levelLines(id: string, title: string, xs: readonly number[], xTitle: string, series: readonly Series[]): string {
  const left = 46;
  const top = 44;
  const w = 300;
  const h = 170;
  const W = left + w + 20;
  const H = top + h + 44;
  const x = (i: number) => left + (xs.length === 1 ? w / 2 : (i * w) / (xs.length - 1));
  const y = (v: number) => top + (1 - Math.max(0, Math.min(1, v))) * h;
  const p: string[] = [svgOpen(`data-chart="${escapeHtml(id)}"`, W, H)];
  p.push(`<text x="${left}" y="14" font-weight="600">${escapeHtml(title)}</text>`, legend(series.map((s) => s.name), left, 32));
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    p.push(`<line data-tick-y="${t}" x1="${left}" x2="${left + w}" y1="${r1(y(t))}" y2="${r1(y(t))}" stroke="#e3e3e3"/><text x="${left - 6}" y="${r1(y(t) + 4)}" text-anchor="end">${t}</text>`);
  }
  xs.forEach((v, i) => p.push(`<line data-tick-x="${v}" x1="${r1(x(i))}" x2="${r1(x(i))}" y1="${top + h}" y2="${top + h + 4}" stroke="#555"/><text x="${r1(x(i))}" y="${top + h + 17}" text-anchor="middle">${v}</text>`));
  p.push(`<line x1="${left}" x2="${left + w}" y1="${top + h}" y2="${top + h}" stroke="#555"/><line x1="${left}" x2="${left}" y1="${top}" y2="${top + h}" stroke="#555"/>`);
  p.push(`<text data-axis="x" x="${left + w / 2}" y="${top + h + 34}" text-anchor="middle">${escapeHtml(xTitle)}</text>`);
  series.forEach((s, k) => {
    const color = SERIES_COLORS[k % SERIES_COLORS.length];
    const pts = s.values.map((e, i) => (e && finite(e.estimate) ? { i, e } : null)).filter((q): q is { i: number; e: StatEstimate } => q !== null);
    if (pts.length > 1) p.push(`<polyline points="${pts.map((q) => `${r1(x(q.i))},${r1(y(q.e.estimate))}`).join(' ')}" fill="none" stroke="${color}" stroke-width="1.5"/>`);
    for (const { i, e } of pts) {
      if (finite(e.ci_low) && finite(e.ci_high)) p.push(`<line data-ci="1" x1="${r1(x(i))}" x2="${r1(x(i))}" y1="${r1(y(e.ci_low))}" y2="${r1(y(e.ci_high))}" stroke="${color}" stroke-opacity="0.6"/>`);
      const label = `${s.name} at ${xs[i]}: ${fmt(e.estimate)} [${fmt(e.ci_low)}, ${fmt(e.ci_high)}]`;
      p.push(`<circle data-point="${escapeHtml(`${id}|${s.name}|${xs[i]}`)}" data-series="${escapeHtml(s.name)}" data-x="${xs[i]}" data-value="${e.estimate}" cx="${r1(x(i))}" cy="${r1(y(e.estimate))}" r="3.5" fill="${color}"><title>${escapeHtml(label)}</title></circle>`);
    }
  });
  p.push('</svg>');
  return p.join('');
}

export interface DotRow {
  label: string;
  /** One marker per series (null: none), with an optional interval. */
  points: readonly ({ estimate: number; ci_low: number | null; ci_high: number | null; hollow?: boolean; note?: string } | null)[];
  /** Text at the right end of the row. */
  note?: string;
}

/**
 * One row per item (a configuration, a pair), one marker per series on a shared horizontal axis with interval
 * whiskers; `zero` draws the line at 0 (differences). Hollow markers: not resolved.
 */
export function dotRows(id: string, rows: readonly DotRow[], seriesNames: readonly string[], axis: { lo: number; hi: number; title: string; zero?: boolean }): string {
  const labelW = labelWidth(rows.map((r) => r.label), 230);
  const plotW = 380;
  const rowH = 16 + seriesNames.length * 8;
  const top = 34;
  const noteW = Math.max(120, ...rows.map((r) => 16 + (r.note?.length ?? 0) * 6.5));
  const plotBottom = top + rows.length * rowH;
  const H = plotBottom + 44;
  const x = (v: number) => labelW + ((Math.max(axis.lo, Math.min(axis.hi, v)) - axis.lo) / (axis.hi - axis.lo || 1)) * plotW;
  const legendW = labelW + seriesNames.reduce((a, n) => a + 24 + n.length * 7, 0);
  const p: string[] = [svgOpen(`data-chart="${escapeHtml(id)}"`, Math.max(legendW, labelW + plotW + noteW), H)];
  p.push(legend(seriesNames, labelW, 16));
  for (const t of niceTicks(axis.lo, axis.hi)) {
    p.push(`<line data-tick-x="${t}" x1="${r1(x(t))}" x2="${r1(x(t))}" y1="${top - 4}" y2="${plotBottom}" stroke="${t === 0 && axis.zero ? '#777' : '#e3e3e3'}"/><text x="${r1(x(t))}" y="${plotBottom + 15}" text-anchor="middle">${t}</text>`);
  }
  p.push(`<text data-axis="x" x="${labelW + plotW / 2}" y="${plotBottom + 34}" text-anchor="middle">${escapeHtml(axis.title)}</text>`);
  rows.forEach((row, i) => {
    const y0 = top + i * rowH;
    p.push(`<text x="${labelW - 8}" y="${y0 + rowH / 2}" text-anchor="end" dominant-baseline="middle">${escapeHtml(row.label)}</text>`);
    row.points.forEach((pt, k) => {
      if (!pt || !finite(pt.estimate)) return;
      const color = SERIES_COLORS[k % SERIES_COLORS.length];
      const cy = y0 + 8 + k * 8 + (seriesNames.length === 1 ? rowH / 2 - 8 : 0);
      if (finite(pt.ci_low) && finite(pt.ci_high)) p.push(`<line data-ci="1" x1="${r1(x(pt.ci_low))}" x2="${r1(x(pt.ci_high))}" y1="${cy}" y2="${cy}" stroke="${color}" stroke-opacity="0.7"/>`);
      const label = `${row.label} ${seriesNames[k]}: ${fmt(pt.estimate)}${finite(pt.ci_low) ? ` [${fmt(pt.ci_low)}, ${fmt(pt.ci_high)}]` : ''}${pt.note ? `; ${pt.note}` : ''}`;
      p.push(
        `<circle data-point="${escapeHtml(`${row.label}|${seriesNames[k]}`)}" data-series="${escapeHtml(seriesNames[k])}" data-value="${pt.estimate}" cx="${r1(x(pt.estimate))}" cy="${cy}" r="3.5" ` +
          `fill="${pt.hollow ? 'white' : color}" stroke="${color}" stroke-width="1.5"><title>${escapeHtml(label)}</title></circle>`,
      );
    });
    if (row.note) p.push(`<text x="${labelW + plotW + 10}" y="${y0 + rowH / 2}" dominant-baseline="middle" fill="#444">${escapeHtml(row.note)}</text>`);
  });
  p.push('</svg>');
  return p.join('');
}

/** Density scaling: one plot per configuration (exec@1, execp@k, deception_rate against twins per query). */
export function densityCharts(tables: readonly DensityTable[]): string[] {
  return tables.map((t) =>
    levelLines(
      `density-${t.config_id}`,
      t.config_id,
      t.points.map((q) => q.twins),
      'twins per query kept in the pool',
      [
        { name: 'exec@1_ta', values: t.points.map((q) => q.exec_at_1) },
        { name: `execp@${t.k}_ta`, values: t.points.map((q) => q.execp_at_k) },
        { name: 'deception_rate', values: t.points.map((q) => q.deception_rate) },
      ],
    ),
  );
}

/** Rank resolution: per metric, the adjacent pairs' differences with intervals around 0; hollow = not resolved by the bootstrap. */
export function resolutionCharts(rows: readonly ResolutionRow[]): { metric: string; svg: string }[] {
  return [...new Set(rows.map((r) => r.metric))].map((metric) => {
    const own = rows.filter((r) => r.metric === metric);
    const m = Math.max(0.05, ...own.flatMap((r) => [r.diff, r.ci_low ?? 0, r.ci_high ?? 0].filter(finite).map(Math.abs)));
    const bound = Math.ceil(m * 20) / 20;
    return {
      metric,
      svg: dotRows(
        `resolution-${metric}`,
        own.map((r) => ({
          label: `${r.upper} − ${r.lower}`,
          points: [{ estimate: r.diff, ci_low: r.ci_low, ci_high: r.ci_high, hollow: !r.resolved_bootstrap }],
          note: `bootstrap: ${r.resolved_bootstrap ? 'resolved' : 'not resolved'}${r.resolved_mcnemar === null ? '' : `; McNemar: ${r.resolved_mcnemar ? 'resolved' : 'not resolved'}`}${r.queries_needed === null ? '' : `; ${r.queries_needed} queries would resolve it`}`,
        })),
        [`${metric} difference (upper − lower)`],
        { lo: -bound, hi: bound, title: `${metric}: upper − lower (dot) and its paired-bootstrap interval; hollow: the interval includes 0`, zero: true },
      ),
    };
  });
}

/** Second stage: exec@1 first, after fusion, and the exec@k ceiling, per configuration. */
export function secondStageChart(rows: readonly SecondStageRow[]): string {
  if (!rows.length) return '';
  const d = rows[0].depth;
  return dotRows(
    'second-stage',
    rows.map((r) => ({ label: r.config_id, points: [r.first_exec_at_1, r.fused_exec_at_1, r.ceiling_exec_at_k] })),
    ['exec@1', `exec@1 after RRF with ${rows[0].second}`, `exec@${d} (ceiling)`],
    { lo: 0, hi: 1, title: 'share of queries' },
  );
}

/** Edit position: the unseen share of twins and deception over all twins and over the seen ones, per configuration. */
export function editPositionChart(rows: readonly EditPositionRow[]): string {
  if (!rows.length) return '';
  return dotRows(
    'edit-position',
    rows.map((r) => ({
      label: `${r.config_id} (${r.max_tokens} tokens)`,
      points: [{ estimate: r.twins ? r.unseen / r.twins : NaN, ci_low: null, ci_high: null, note: `${r.unseen} of ${r.twins}` }, r.deception_all, r.deception_seen],
      note: `${r.unseen} of ${r.twins} twins unseen`,
    })),
    ['edit unseen (share of twins)', 'deception_rate (all)', 'deception_rate (seen)'],
    { lo: 0, hi: 1, title: 'share' },
  );
}
