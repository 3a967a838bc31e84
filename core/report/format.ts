import type { StatEstimate } from '../stats/engine.ts';
import { visibleText } from '../visibleText.ts';

/** Shared number formatting for the Markdown and HTML reports. */
export function fmt(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  return x.toFixed(digits);
}

export function fmtP(p: number | null | undefined): string {
  if (p === null || p === undefined || Number.isNaN(p)) return '–';
  if (p < 1e-4) return p.toExponential(1);
  return p.toFixed(4);
}

/** `0.331 [0.301, 0.362]`; canonical rank (a mean of ranks) gets one decimal. */
export function fmtCi(e: StatEstimate | undefined, digits = 3): string {
  if (!e) return '–';
  return `${fmt(e.estimate, digits)} [${fmt(e.ci_low, digits)}, ${fmt(e.ci_high, digits)}]`;
}

export function digitsFor(stat: string): number {
  return stat === 'canonical_rank' ? 1 : 3;
}

/** Markdown table; cells are escaped for pipes. */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

/** HTML-escaped, with control characters as visible escapes (snippets and outcomes are candidate text). */
export function escapeHtml(s: string): string {
  return visibleText(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
