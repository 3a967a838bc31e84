import type { StatisticsResult } from './statistics.ts';
import { digitsFor, fmt, fmtCi } from './format.ts';

/**
 * The headline table, shared by report.md, report.html and the terminal: configurations sorted by the
 * tie-aware exec@1_ta (best first; exact ties by the hash-order exec@1, then by config id), and ranx-style
 * significance letters: each configuration gets a letter by its place in the sorted table, and a value carries
 * the letters of the configurations it beats on that exec@k counting settled outcomes only (exact McNemar over
 * queries whose outcome no tie order can change, or the paired bootstrap of the tie-aware values where too few
 * are settled for McNemar to decide; Holm-adjusted, p_holm < alpha, and a paired-bootstrap interval of the
 * tie-aware difference that excludes 0; core/stats/stablePairwise.ts). The first row is marked the winner only when it beats every other row so
 * (headlineVerdict); otherwise the report says there is no clear winner. Why not the hash-order exec@1: a
 * retriever that ties many canonicals with their twins (BM25) gets exec@1 from the tie-break's toss (issue 28).
 * The hash-order columns stay, as what a production system returns.
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
export const TESTED_HEADLINE: readonly string[] = ['exec@1_ta', 'exec@10'];
/** The tie-stable comparison behind each lettered column (StatisticsResult.stable rows of that metric). */
const LETTERS_FROM: Record<string, string> = { 'exec@1_ta': 'exec@1_ta', 'exec@10': 'exec@10_ta' };
/** The column the order and the winner are decided on. */
export const WINNER_METRIC = 'exec@1_ta' as const;

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
      (e[b][WINNER_METRIC]?.estimate ?? 0) - (e[a][WINNER_METRIC]?.estimate ?? 0) ||
      e[b]['exec@1'].estimate - e[a]['exec@1'].estimate ||
      (a < b ? -1 : a > b ? 1 : 0),
  );
}

/**
 * The configurations `config` beats on the tie-stable `metric` (config ids): the exact McNemar over settled
 * outcomes rejects (Holm-adjusted p < alpha) and the paired-bootstrap interval of the tie-aware difference lies
 * wholly on `config`'s side of 0.
 */
function stableBeats(s: StatisticsResult, metric: string, config: string): string[] {
  const out: string[] = [];
  for (const r of s.stable ?? []) {
    if (r.metric !== metric || r.p_holm === null || !(r.p_holm < s.settings.alpha)) continue;
    if (r.config_a === config && r.value_a > r.value_b && r.ci_low !== null && r.ci_low > 0) out.push(r.config_b);
    if (r.config_b === config && r.value_b > r.value_a && r.ci_high !== null && r.ci_high < 0) out.push(r.config_a);
  }
  return out;
}

/**
 * Whether the top of the headline has a winner that survives the toss: the first configuration (by exec@1_ta)
 * beats every other one on settled exec@1 outcomes (stableBeats). `close` lists the configurations it is not
 * separated from; a single configuration wins alone. Without tie-stable comparisons (`stable` absent) no
 * winner is declared.
 */
export interface HeadlineVerdict {
  leader: string;
  winner: string | null;
  close: string[];
}

export function headlineVerdict(s: StatisticsResult): HeadlineVerdict {
  const order = sortedConfigs(s);
  const leader = order[0];
  if (order.length === 1) return { leader, winner: leader, close: [] };
  const beaten = new Set(stableBeats(s, WINNER_METRIC, leader));
  const close = s.stable ? order.slice(1).filter((c) => !beaten.has(c)) : order.slice(1);
  return { leader, winner: close.length === 0 ? leader : null, close };
}

export function headlineRows(s: StatisticsResult): HeadlineRow[] {
  const order = sortedConfigs(s);
  const verdict = headlineVerdict(s);
  const letter = new Map(order.map((c, i) => [c, letterOf(i)]));
  const beats = (metric: string, config: string): string[] =>
    stableBeats(s, LETTERS_FROM[metric], config)
      .map((c) => letter.get(c)!)
      .filter(Boolean)
      .sort();
  return order.map((config) => ({
    config,
    letter: letter.get(config)!,
    winner: config === verdict.winner,
    cells: HEADLINE.map((metric) => ({
      metric,
      text: fmtCi(s.estimates[config][metric], digitsFor(metric)),
      beats: TESTED_HEADLINE.includes(metric) ? beats(metric, config) : [],
    })),
  }));
}

/** One sentence under every rendering of the headline. */
export function headlineNote(s: StatisticsResult): string {
  const v = headlineVerdict(s);
  const e = s.estimates[v.leader];
  const lead = `${v.leader} (exec@1_ta ${fmt(e[WINNER_METRIC]?.estimate)}; hash-order exec@1 ${fmt(e['exec@1'].estimate)}, what a production system returns)`;
  const verdict = s.configs.length === 1
    ? `one configuration: ${lead}. `
    : v.winner
    ? `winner: ${lead}, ahead of every other configuration on outcomes no tie order can change. `
    : `no clear winner: the leader ${lead} is not separated from ${v.close.join(', ')} on outcomes no tie order can change. `;
  return (
    `Sorted by the tie-aware exec@1_ta; ${verdict}` +
    `Letters: each configuration's letter (a = first row); a superscript lists the configurations it beats on that exec@k, ` +
    `counting only queries whose outcome no tie order can change (exact McNemar, Holm-adjusted across all pairs, p < ${s.settings.alpha}).` +
    undecidedNote(s)
  );
}

/**
 * The pairs whose settled outcomes were too few for McNemar to decide (core/stats/stablePairwise.ts), named with
 * why, and the test that decided them instead: a leader that ties many canonicals must not read as "not
 * separated" for want of settled queries.
 */
function undecidedNote(s: StatisticsResult): string {
  const rows = (s.stable ?? []).filter((r) => r.metric === WINNER_METRIC && r.test === 'paired_bootstrap_ta');
  if (!rows.length) return '';
  const pairs = rows.map((r) => `${r.config_a} vs ${r.config_b} (${(r.b ?? 0) + (r.c ?? 0)} settled discordant, ${r.unsettled} unsettled)`);
  return (
    ` McNemar cannot decide ${rows.length === 1 ? 'one pair' : `${rows.length} pairs`} on ${WINNER_METRIC}: 5 or fewer queries where one ` +
    `surely passes and the other surely fails, and no split of so few reaches p < ${s.settings.alpha} (${pairs.join('; ')}). ` +
    `${rows.length === 1 ? 'It was' : 'They were'} tested on the tie-aware per-query values instead (paired bootstrap of the mean difference, same Holm family).`
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
