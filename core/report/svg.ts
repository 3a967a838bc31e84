import { escapeHtml, fmt } from './format.ts';

/**
 * Static SVG charts for report.html, built as strings (no charting library: the file must open offline with
 * nothing fetched, and these four charts are a few dozen lines each). Every chart carries a `data-chart`
 * attribute and one element per datum with a `data-*` tag, which the browser test counts.
 */
const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

/**
 * Room for a column of labels at the 12 px font: ~6.6 px a character (system-ui's widest lowercase average, with
 * a margin), at least `min`. A fixed width clipped real configuration ids (local-all-minilm-l6-v2-int8).
 */
export function labelWidth(labels: readonly string[], min = 190): number {
  return Math.max(min, Math.ceil(14 + Math.max(0, ...labels.map((l) => l.length * 6.6))));
}

/**
 * Legend entries from x0 rightwards, wrapped onto a new row of `rowH` before one would pass `maxX` (long
 * configuration ids used to overprint each other, or run past the plot): the markup and the height it takes.
 */
export function legendRows(items: readonly { label: string; color: string }[], x0: number, maxX: number, y0 = 4, rowH = 16): { svg: string; height: number } {
  let x = x0;
  let y = y0;
  const parts = items.map(({ label, color }) => {
    const w = 14 + label.length * 6.6 + 12;
    if (x > x0 && x + w > maxX) [x, y] = [x0, y + rowH];
    const s = `<rect x="${x.toFixed(1)}" y="${y}" width="10" height="10" fill="${color}"/><text data-legend-item="1" x="${(x + 14).toFixed(1)}" y="${y + 9}">${escapeHtml(label)}</text>`;
    x += w;
    return s;
  });
  return { svg: parts.join(''), height: items.length ? y - y0 + rowH : 0 };
}

/** An SVG's opening tag with a viewBox of its own size: CSS scales it to its container (html.ts), text and all. */
export function svgOpen(attrs: string, w: number, h: number): string {
  return `<svg ${attrs} xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" ${FONT}>`;
}

export interface BarDatum {
  label: string;
  series: { name: string; value: number; lo: number | null; hi: number | null }[];
}

/** Grouped horizontal bars in [0, 1] with CI whiskers. */
export function barsWithCi(id: string, data: readonly BarDatum[], colors: readonly string[]): string {
  const labelW = labelWidth(data.map((d) => d.label));
  const plotW = 420;
  const barH = 12;
  const nSeries = data[0]?.series.length ?? 0;
  const groupH = nSeries * (barH + 2) + 10;
  const W = labelW + plotW + 70;
  const legend = legendRows((data[0]?.series ?? []).map((s, k) => ({ label: s.name, color: colors[k % colors.length] })), labelW, W);
  const top = legend.height + 8;
  const h = top + data.length * groupH + 24;
  const x = (v: number) => labelW + Math.max(0, Math.min(1, v)) * plotW;
  const parts: string[] = [svgOpen(`data-chart="${id}"`, W, h), legend.svg];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${top - 4}" y2="${h - 20}" stroke="#ddd"/><text x="${x(t)}" y="${h - 6}" text-anchor="middle">${t}</text>`);
  }
  data.forEach((d, i) => {
    const y0 = top + i * groupH;
    parts.push(`<text x="${labelW - 6}" y="${y0 + groupH / 2}" text-anchor="end" dominant-baseline="middle">${escapeHtml(d.label)}</text>`);
    d.series.forEach((s, k) => {
      const y = y0 + k * (barH + 2);
      const title = `${d.label} ${s.name}: ${fmt(s.value)} [${fmt(s.lo)}, ${fmt(s.hi)}]`;
      parts.push(
        `<rect data-bar="${escapeHtml(d.label)}|${escapeHtml(s.name)}" x="${labelW}" y="${y}" width="${(x(s.value) - labelW).toFixed(1)}" height="${barH}" fill="${colors[k % colors.length]}"><title>${escapeHtml(title)}</title></rect>`,
      );
      if (s.lo !== null && s.hi !== null) {
        const cy = y + barH / 2;
        parts.push(
          `<path data-ci="1" d="M${x(s.lo).toFixed(1)},${cy} H${x(s.hi).toFixed(1)} M${x(s.lo).toFixed(1)},${cy - 4} V${cy + 4} M${x(s.hi).toFixed(1)},${cy - 4} V${cy + 4}" stroke="#222" fill="none"/>`,
        );
      }
      parts.push(`<text x="${x(s.hi ?? s.value) + 4}" y="${y + barH - 2}">${fmt(s.value)}</text>`);
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** Rows of stacked shares (each row sums to 1), e.g. the canonical-rank distribution per configuration. */
export function stackedShares(id: string, rows: readonly { label: string; counts: number[] }[], buckets: readonly string[], colors: readonly string[], axisTitle = 'share of queries'): string {
  const labelW = labelWidth(rows.map((r) => r.label));
  const plotW = 460;
  const rowH = 18;
  const W = labelW + plotW + 30;
  const legend = legendRows(buckets.map((b, k) => ({ label: b, color: colors[k % colors.length] })), labelW, W);
  const top = legend.height + 12;
  const plotBottom = top + rows.length * (rowH + 4);
  const h = plotBottom + 40;
  const parts: string[] = [svgOpen(`data-chart="${id}"`, W, h), legend.svg];
  // The x axis: shares of the row's queries, 0–100 %.
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    const x = labelW + t * plotW;
    parts.push(`<line data-tick="${t}" x1="${x}" x2="${x}" y1="${top - 2}" y2="${plotBottom + 2}" stroke="#ccc"/><text x="${x}" y="${plotBottom + 14}" text-anchor="middle">${Math.round(t * 100)}%</text>`);
  }
  parts.push(`<text data-axis="x" x="${labelW + plotW / 2}" y="${plotBottom + 32}" text-anchor="middle">${escapeHtml(axisTitle)}</text>`);
  rows.forEach((r, i) => {
    const y = top + i * (rowH + 4);
    const total = r.counts.reduce((a, b) => a + b, 0) || 1;
    parts.push(`<text x="${labelW - 6}" y="${y + rowH / 2}" text-anchor="end" dominant-baseline="middle">${escapeHtml(r.label)}</text>`);
    let x = labelW;
    r.counts.forEach((c, k) => {
      const w = (c / total) * plotW;
      if (w > 0) {
        const pct = `${Math.round((100 * c) / total)}%`;
        parts.push(
          `<rect data-segment="${escapeHtml(r.label)}|${escapeHtml(buckets[k])}" x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${rowH}" fill="${colors[k % colors.length]}"><title>${escapeHtml(`${r.label}: canonical rank ${buckets[k]}: ${c} of ${total} (${pct})`)}</title></rect>`,
        );
        // The percentage inside the segment when it fits.
        if (w >= 26) parts.push(`<text data-pct="1" x="${(x + w / 2).toFixed(1)}" y="${y + rowH / 2}" text-anchor="middle" dominant-baseline="middle" font-size="10" pointer-events="none">${pct}</text>`);
      }
      x += w;
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** White→red for 0→1. */
export function heatColor(v: number | null): string {
  if (v === null || Number.isNaN(v)) return '#eee';
  const t = Math.max(0, Math.min(1, v));
  const g = Math.round(255 - 190 * t);
  return `rgb(255,${g},${g})`;
}

/** The colour scale of heatColor as a bar from 0 to 1, with the meaning of the value. */
export function heatLegend(id: string, meaning: string): string {
  const w = 240;
  const stops = [0, 0.25, 0.5, 0.75, 1];
  return (
    // The meaning on its own line and a viewBox: the legend fits a phone's width (390 px) without clipping.
    `<svg data-legend="${id}" xmlns="http://www.w3.org/2000/svg" width="${w + 140}" height="56" viewBox="0 0 ${w + 140} 56" ${FONT}>` +
    `<defs><linearGradient id="grad-${id}">${stops.map((t) => `<stop offset="${t * 100}%" stop-color="${heatColor(t)}"/>`).join('')}</linearGradient></defs>` +
    `<rect x="10" y="4" width="${w}" height="12" fill="url(#grad-${id})" stroke="#ccc"/>` +
    stops.map((t) => `<text x="${10 + t * w}" y="30" text-anchor="middle">${t}</text>`).join('') +
    `<rect x="${w + 24}" y="4" width="12" height="12" fill="${heatColor(null)}" stroke="#ccc"/><text x="${w + 40}" y="14">no distractors</text>` +
    `<text x="10" y="50">${escapeHtml(meaning)}</text></svg>`
  );
}

/** A matrix of coloured cells with a value in each (heatmap or pairwise matrix); `sub` is an optional second line (an interval). */
export function cellMatrix(
  id: string,
  rows: readonly string[],
  cols: readonly string[],
  cell: (r: number, c: number) => { fill: string; text: string; title: string; sub?: string } | null,
  opts: { twoLines?: boolean } = {},
): string {
  const labelW = labelWidth(rows);
  const cw = Math.max(opts.twoLines ? 74 : 46, Math.min(90, Math.floor(800 / Math.max(1, cols.length))));
  const ch = opts.twoLines ? 36 : 22;
  // Room above for the column labels at -45° (~28 characters in 150 px), and on the right for the last one.
  const rotated = Math.ceil(Math.max(0, ...cols.map((c) => c.length * 6.6)) * Math.SQRT1_2);
  const top = Math.max(150, rotated + 20);
  const w = labelW + cols.length * cw + Math.max(130, rotated + 10);
  const h = top + rows.length * ch + 10;
  const parts: string[] = [svgOpen(`data-chart="${id}"`, w, h)];
  cols.forEach((c, j) => {
    const x = labelW + j * cw + cw / 2;
    parts.push(`<text x="${x}" y="${top - 6}" transform="rotate(-45 ${x} ${top - 6})">${escapeHtml(c)}</text>`);
  });
  rows.forEach((r, i) => {
    const y = top + i * ch;
    parts.push(`<text x="${labelW - 6}" y="${y + ch / 2}" text-anchor="end" dominant-baseline="middle">${escapeHtml(r)}</text>`);
    cols.forEach((_, j) => {
      const c = cell(i, j);
      if (!c) return;
      const x = labelW + j * cw;
      parts.push(
        `<g data-cell="${i},${j}"><rect x="${x}" y="${y}" width="${cw - 2}" height="${ch - 2}" fill="${c.fill}" stroke="#ccc" stroke-width="0.5"><title>${escapeHtml(c.title)}</title></rect>` +
          (c.sub
            ? `<text x="${x + (cw - 2) / 2}" y="${y + 12}" text-anchor="middle" dominant-baseline="middle" pointer-events="none">${escapeHtml(c.text)}</text>` +
              `<text data-sub="1" x="${x + (cw - 2) / 2}" y="${y + 26}" text-anchor="middle" dominant-baseline="middle" font-size="9" fill="#444" pointer-events="none">${escapeHtml(c.sub)}</text></g>`
            : `<text x="${x + (cw - 2) / 2}" y="${y + ch / 2}" text-anchor="middle" dominant-baseline="middle" pointer-events="none">${escapeHtml(c.text)}</text></g>`),
      );
    });
  });
  parts.push('</svg>');
  return parts.join('');
}
