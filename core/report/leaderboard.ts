import type { StatisticsResult } from './statistics.ts';
import { HEADLINE, TESTED_HEADLINE, WINNER_METRIC, headlineRows, headlineVerdict } from './headline.ts';

/**
 * The leaderboard other tools read (report/leaderboard.csv and leaderboard.json): the headline's rows in
 * its order (tie-aware exec@1_ta, best first), each headline statistic with its interval, the winner flag (true
 * for no entry when the leader is not separated: headlineVerdict) and, for the tested exec@k columns, the
 * letters of the configurations it beats on settled outcomes (Holm-adjusted McNemar). Same names as
 * summary.json. Pure.
 */
export interface LeaderboardEntry {
  rank: number;
  letter: string;
  config_id: string;
  winner: boolean;
  metrics: Record<string, { estimate: number; ci_low: number | null; ci_high: number | null; support: number; beats?: string[] }>;
}

export interface Leaderboard {
  sorted_by: typeof WINNER_METRIC;
  /** The winner's config_id, or null when there is no clear winner. */
  winner: string | null;
  alpha: number;
  tests: string;
  entries: LeaderboardEntry[];
}

export function buildLeaderboard(s: StatisticsResult): Leaderboard {
  const entries = headlineRows(s).map((r, i): LeaderboardEntry => ({
    rank: i + 1,
    letter: r.letter,
    config_id: r.config,
    winner: r.winner,
    metrics: Object.fromEntries(
      HEADLINE.map((m) => {
        const e = s.estimates[r.config][m];
        const cell = r.cells.find((c) => c.metric === m)!;
        return [m, { estimate: e.estimate, ci_low: e.ci_low, ci_high: e.ci_high, support: e.support, ...(TESTED_HEADLINE.includes(m) ? { beats: cell.beats } : {}) }];
      }),
    ),
  }));
  return {
    sorted_by: WINNER_METRIC,
    winner: headlineVerdict(s).winner,
    alpha: s.settings.alpha,
    tests: 'beats: letters of the configurations this one beats on that exec@k, counting only queries whose outcome no tie order can change (exact McNemar, Holm-adjusted across all pairs)',
    entries,
  };
}

/** RFC 4180 field: quoted when it holds a comma, quote or newline. */
const csvField = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** One row per configuration: rank, letter, config_id, winner, then estimate / ci_low / ci_high per headline column, then the beats columns. */
export function leaderboardCsv(l: Leaderboard): string {
  const header = ['rank', 'letter', 'config_id', 'winner', ...HEADLINE.flatMap((m) => [m, `${m}_ci_low`, `${m}_ci_high`]), ...TESTED_HEADLINE.map((m) => `${m}_beats`)];
  const num = (x: number | null) => (x === null || Number.isNaN(x) ? '' : String(x));
  const rows = l.entries.map((e) => [
    String(e.rank),
    e.letter,
    e.config_id,
    e.winner ? 'true' : 'false',
    ...HEADLINE.flatMap((m) => [num(e.metrics[m].estimate), num(e.metrics[m].ci_low), num(e.metrics[m].ci_high)]),
    ...TESTED_HEADLINE.map((m) => (e.metrics[m].beats ?? []).join('')),
  ]);
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\n') + '\n';
}
