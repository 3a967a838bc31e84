import type { StatisticsResult } from './statistics.ts';
import { digitsFor, fmt, fmtCi } from './format.ts';

/**
 * The headline table, shared by report.md, report.html and the terminal: configurations sorted by exec@1
 * (best first; exact ties on exec@1 by exec@1_ta, then by config id), the first one marked as the winner, and
 * ranx-style significance letters: each configuration gets a letter by its place in the sorted table, and a
 * value carries the letters of the configurations it beats significantly on that metric (Holm-adjusted exact
 * McNemar, p_holm < alpha, higher value). Only the exec@k columns carry letters: they are the tested ones.
 */
export const HEADLINE = [
  'exec@1',
  'exec@1_ta',
  'exec@10',
  'execp@10',
  'ndcg@10',
  'ndcg@10_ta',
  'rr_exec@10',
  'rr_exec@10_ta',
  'canonical_rank',
  'deception_rate',
  'tie_rate',
  'rank1_own_share',
  'pref_accuracy',
] as const;
/** Headline columns with significance letters. */
export const TESTED_HEADLINE: readonly string[] = ['exec@1', 'exec@10'];

export interface HeadlineRow {
  config: string;
  letter: string;
  winner: boolean;
  /** Per headline column: the formatted value with its interval, and the letters it beats. */
  cells: { metric: string; text: string; beats: string[] }[];
}

export const letterOf = (i: number): string => (i < 26 ? String.fromCharCode(97 + i) : `z${i - 25}`);

export function sortedConfigs(s: StatisticsResult): string[] {
  const e = s.estimates;
  return [...s.configs].sort(
    (a, b) =>
      e[b]['exec@1'].estimate - e[a]['exec@1'].estimate ||
      (e[b]['exec@1_ta']?.estimate ?? 0) - (e[a]['exec@1_ta']?.estimate ?? 0) ||
      (a < b ? -1 : a > b ? 1 : 0),
  );
}

export function headlineRows(s: StatisticsResult): HeadlineRow[] {
  const order = sortedConfigs(s);
  const letter = new Map(order.map((c, i) => [c, letterOf(i)]));
  const beats = (metric: string, config: string): string[] => {
    const out: string[] = [];
    for (const r of s.pairwise) {
      if (r.metric !== metric || r.p_holm === null || !(r.p_holm < s.settings.alpha)) continue;
      if (r.config_a === config && r.value_a > r.value_b) out.push(letter.get(r.config_b)!);
      if (r.config_b === config && r.value_b > r.value_a) out.push(letter.get(r.config_a)!);
    }
    return out.filter(Boolean).sort();
  };
  return order.map((config, i) => ({
    config,
    letter: letter.get(config)!,
    winner: i === 0,
    cells: HEADLINE.map((metric) => ({
      metric,
      text: fmtCi(s.estimates[config][metric], digitsFor(metric)),
      beats: TESTED_HEADLINE.includes(metric) ? beats(metric, config) : [],
    })),
  }));
}

/** One sentence under every rendering of the headline. */
export function headlineNote(s: StatisticsResult): string {
  const rows = headlineRows(s);
  const w = rows[0];
  const e = s.estimates[w.config];
  return (
    `Sorted by exec@1; best: ${w.config} (exec@1 ${fmt(e['exec@1'].estimate)}, tie-aware ${fmt(e['exec@1_ta']?.estimate)}). ` +
    `Letters: each configuration's letter (a = first row); a superscript lists the configurations it beats on that exec@k column ` +
    `(exact McNemar, Holm-adjusted across all pairs, p < ${s.settings.alpha}).`
  );
}

/** The headline as aligned plain text, for the terminal at the end of `score` and `run`. */
export function headlineText(s: StatisticsResult, cols: readonly string[] = ['exec@1', 'exec@1_ta', 'exec@10', 'ndcg@10', 'rr_exec@10', 'deception_rate', 'tie_rate']): string {
  const rows = headlineRows(s);
  const header = ['', 'config', ...cols];
  const body = rows.map((r) => [
    r.winner ? '*' : ' ',
    `(${r.letter}) ${r.config}`,
    ...cols.map((m) => {
      const c = r.cells.find((x) => x.metric === m);
      const v = fmt(s.estimates[r.config][m]?.estimate, digitsFor(m));
      return c && c.beats.length ? `${v}^${c.beats.join('')}` : v;
    }),
  ]);
  const width = header.map((h, j) => Math.max(h.length, ...body.map((b) => b[j].length)));
  const line = (cells: string[]) => cells.map((c, j) => (j <= 1 ? c.padEnd(width[j]) : c.padStart(width[j]))).join('  ').trimEnd();
  return [line(header), ...body.map(line), '', headlineNote(s)].join('\n');
}
