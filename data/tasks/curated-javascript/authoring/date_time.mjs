// Curated tasks: date_time (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
export default [
  {
    lang: 'javascript',
    name: 'isoWeek',
    query: 'Return the ISO-8601 week number (1-53) of a calendar date given as year, month and day, where weeks start on Monday and early January days can belong to the previous year\'s last week; a month outside 1-12 or a day outside 1-31 throws a RangeError.',
    code: `
function isoWeek(year, month, day) {
  if (month < 1 || month > 12 || day < 1 || day > 31) throw new RangeError('no such date');
  const date = new Date(Date.UTC(year, month - 1, day));
  const dow = date.getUTCDay() || 7;
  date.setUTCDate(date.getUTCDate() + 4 - dow);
  const yearStart = Date.UTC(date.getUTCFullYear(), 0, 1);
  return Math.ceil(((date - yearStart) / 86400000 + 1) / 7);
}`,
    calls: [{ args: [2021, 1, 1], expected: 53 }, [2021, 1, 4], [2020, 12, 31], { args: [2024, 12, 30], expected: 1 }, [2026, 12, 4], [2018, 1, 1], [2027, 1, 3], [2026, 13, 1], [2026, 1, 0]],
  },
  {
    lang: 'javascript',
    name: 'timeAgo',
    query: 'Describe an elapsed number of seconds as "just now" (under a minute), "N minutes ago", "N hours ago", "yesterday" or "N days ago", with singular "1 minute ago" and "1 hour ago"; negative input throws a RangeError.',
    code: `
function timeAgo(seconds) {
  if (seconds < 0) throw new RangeError('negative elapsed time');
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return minutes === 1 ? '1 minute ago' : minutes + ' minutes ago';
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return hours === 1 ? '1 hour ago' : hours + ' hours ago';
  const days = Math.floor(hours / 24);
  return days === 1 ? 'yesterday' : days + ' days ago';
}`,
    calls: [[0], [59], { args: [60], expected: '1 minute ago' }, [119], [3599], [3600], [86399], [86400], { args: [172800], expected: '2 days ago' }, [-1]],
  },
  {
    lang: 'javascript',
    name: 'addBusinessDays',
    query: 'Add n working days (Monday to Friday) to a "YYYY-MM-DD" date and return the new date in the same form; n of 0 returns the date unchanged even on a weekend and negative n counts backwards.',
    code: `
function addBusinessDays(iso, n) {
  const d = new Date(iso + 'T00:00:00Z');
  const step = n < 0 ? -1 : 1;
  let left = Math.abs(n);
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + step);
    const dow = d.getUTCDay();
    if (dow !== 0 && dow !== 6) left--;
  }
  return d.toISOString().slice(0, 10);
}`,
    calls: [{ args: ['2026-12-04', 1], expected: '2026-12-07' }, ['2026-12-04', 0], ['2026-12-05', 0], ['2026-12-05', 1], ['2026-12-07', -1], ['2026-12-01', 5], ['2026-12-31', 1], ['2024-02-28', 2], { args: ['2026-12-07', -6], expected: '2026-11-27' }],
  },
  {
    lang: 'javascript',
    name: 'clock12ToMinutes',
    query: 'Convert a 12-hour clock time like "7:05 PM" (case-insensitive, optional space before AM/PM) to minutes after midnight, with 12 AM as midnight and 12 PM as noon; malformed times such as "13:00 PM" or "7:60 AM" throw an Error.',
    code: `
function clock12ToMinutes(text) {
  const m = /^(\\d{1,2}):(\\d{2}) ?([AP]M)$/i.exec(text.trim());
  if (!m) throw new Error('bad time: ' + text);
  let hours = Number(m[1]);
  const minutes = Number(m[2]);
  if (hours < 1 || hours > 12 || minutes > 59) throw new Error('bad time: ' + text);
  if (hours === 12) hours = 0;
  if (m[3].toUpperCase() === 'PM') hours += 12;
  return hours * 60 + minutes;
}`,
    calls: [{ args: ['12:00 AM'], expected: 0 }, ['12:30 AM'], ['1:05 am'], { args: ['11:59 PM'], expected: 1439 }, ['12:00 PM'], ['12:01pm'], ['13:00 PM'], ['0:30 AM'], ['7:60 AM'], ['7:5 AM']],
  },
  {
    lang: 'typescript',
    name: 'daysBetween',
    query: 'Return the signed number of days from one "YYYY-MM-DD" date to another (negative when the second is earlier); an unparseable date or one before 1970-01-01 throws a RangeError.',
    code: `
function daysBetween(from: string, to: string): number {
  const start = Date.parse(from + 'T00:00:00Z');
  const end = Date.parse(to + 'T00:00:00Z');
  if (Number.isNaN(start) || Number.isNaN(end)) throw new RangeError('invalid date');
  if (start < 0 || end < 0) throw new RangeError('date before 1970');
  return Math.round((end - start) / 86_400_000);
}`,
    calls: [{ args: ['2026-01-01', '2026-01-02'], expected: 1 }, ['2026-01-02', '2026-01-01'], ['2024-02-28', '2024-03-01'], ['2023-02-28', '2023-03-01'], { args: ['2024-01-01', '2025-01-01'], expected: 366 }, ['1970-01-01', '1970-01-11'], ['1969-12-31', '1970-01-01'], ['2026-13-01', '2026-01-01'], ['2026-01-01', 'x']],
  },
  {
    lang: 'typescript',
    name: 'fiscalYear',
    query: 'Return the fiscal year of a "YYYY-MM-DD" date for a fiscal year starting in month startMonth, labelled by the calendar year in which it ends (startMonth 1 is the calendar year); startMonth outside 1..12 throws a RangeError.',
    code: `
function fiscalYear(isoDate: string, startMonth: number): number {
  if (startMonth < 1 || startMonth > 12) throw new RangeError('startMonth must be 1-12');
  const [year, month] = isoDate.split('-').map(Number);
  if (startMonth === 1) return year;
  return month >= startMonth ? year + 1 : year;
}`,
    calls: [['2026-12-04', 1], { args: ['2026-12-04', 10], expected: 2027 }, ['2026-09-30', 10], ['2026-10-01', 10], ['2026-04-01', 4], ['2026-03-31', 4], ['2026-01-15', 0], ['2026-01-15', 13], ['2026-12-31', 12], ['2026-01-31', 2]],
  },
];
