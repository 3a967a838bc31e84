// Curated tasks: validation (JavaScript and TypeScript). Expected values are computed by
// data/tasks/curated-langs.mjs from the canonicals; a call written {args, expected} is a hand-typed spot check.
const label63 = 'a'.repeat(63);
export default [
  {
    lang: 'javascript',
    name: 'isValidHostname',
    query: 'Check a DNS hostname: 1 to 253 characters of dot-separated labels, each 1 to 63 letters, digits or hyphens and not starting or ending with a hyphen.',
    code: `
function isValidHostname(name) {
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  return labels.every((label) => {
    if (label.length < 1 || label.length > 63) return false;
    if (label.startsWith('-') || label.endsWith('-')) return false;
    return /^[a-z0-9-]+$/i.test(label);
  });
}`,
    calls: [
      { args: ['example.com'], expected: true }, [''], ['a..b'], ['-a.com'], ['a-.com'], ['a-b.C0m'], [label63 + '.com'], ['a' + label63 + '.com'],
      { args: [[label63, label63, label63, 'a'.repeat(61)].join('.')], expected: true }, { args: [[label63, label63, label63, 'a'.repeat(62)].join('.')], expected: false },
    ],
  },
  {
    lang: 'javascript',
    name: 'invalidFields',
    query: 'Validate a form object and list the invalid fields in the order name, age, email: name must be a non-blank string, age an integer from 0 to 150, email exactly one "@" with text on both sides.',
    code: `
function invalidFields(form) {
  const errors = [];
  if (typeof form.name !== 'string' || form.name.trim() === '') errors.push('name');
  if (!Number.isInteger(form.age) || form.age < 0 || form.age > 150) errors.push('age');
  const parts = typeof form.email === 'string' ? form.email.split('@') : [];
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') errors.push('email');
  return errors;
}`,
    calls: [
      { args: [{ name: 'Ann', age: 30, email: 'a@b.c' }], expected: [] },
      [{ name: '  ', age: 30, email: 'a@b.c' }],
      [{ name: 'Ann', age: -1, email: 'a@b.c' }],
      [{ name: 'Ann', age: 0, email: 'a@b.c' }],
      [{ name: 'Ann', age: 150, email: 'a@b.c' }],
      [{ name: 'Ann', age: 151, email: 'a@b.c' }],
      [{ name: 'Ann', age: 2.5, email: 'a@@b' }],
      [{ name: 'Ann', age: 20, email: '@b' }],
      [{ name: 'Ann', age: 20, email: 'ab@' }],
      { args: [{}], expected: ['name', 'age', 'email'] },
    ],
  },
  {
    lang: 'javascript',
    name: 'isValidIsbn13',
    query: 'Check an ISBN-13, hyphens allowed anywhere: exactly 13 digits whose checksum (weights 1 and 3 alternating) is a multiple of 10.',
    code: `
function isValidIsbn13(text) {
  const digits = text.replaceAll('-', '');
  if (!/^\\d{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) {
    sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
  }
  return sum % 10 === 0;
}`,
    calls: [{ args: ['978-0-306-40615-7'], expected: true }, ['9780306406157'], ['9780306406158'], ['978030640615'], ['97803064061577'], ['978-0-306-40615-X'], ['978-3-16-148410-0'], ['0000000000000'], ['9783161484101']],
  },
  {
    lang: 'javascript',
    name: 'isValidPortSpec',
    query: 'Check a port specification: a single port or a "low-high" range of decimal ports from 1 to 65535 with low not above high.',
    code: `
function isValidPortSpec(spec) {
  const parts = spec.split('-');
  if (parts.length > 2) return false;
  const ports = parts.map((p) => (/^\\d{1,5}$/.test(p) ? Number(p) : -1));
  if (ports.some((p) => p < 1 || p > 65535)) return false;
  return ports.length === 1 || ports[0] <= ports[1];
}`,
    calls: [['80'], ['0'], ['65535'], ['65536'], { args: ['1000-2000'], expected: true }, ['2000-1000'], ['22-22'], ['1-2-3'], ['-5'], ['http']],
  },
  {
    lang: 'typescript',
    name: 'isValidMac',
    query: 'Check a MAC address: six two-digit hex groups (any case) separated throughout by the same separator, either ":" or "-".',
    code: `
function isValidMac(text: string): boolean {
  const sep = text[2];
  if (sep !== ':' && sep !== '-') return false;
  const groups = text.split(sep);
  if (groups.length !== 6) return false;
  return groups.every((g) => g.length === 2 && /^[0-9a-f]+$/i.test(g));
}`,
    calls: [{ args: ['00:1A:2b:3C:4d:5E'], expected: true }, ['00-1A-2B-3C-4D-5E'], ['00:1A-2B:3C:4D:5E'], ['00:1A:2B:3C:4D'], ['00:1A:2B:3C:4D:5E:6F'], ['001A2B3C4D5E'], ['00:1A:2B:3C:4D:5G'], ['0:01A:2B:3C:4D:5E'], ['00:1A:2B:3C:4D:5']],
  },
  {
    lang: 'typescript',
    name: 'dateRangeError',
    query: 'Validate a date range of two "YYYY-MM-DD" strings, returning "format" for a malformed or impossible date, "order" when the end is before the start, "too_long" when it spans more than maxDays days, and null when valid.',
    code: `
function dateRangeError(start: string, end: string, maxDays: number): string | null {
  const iso = /^\\d{4}-\\d{2}-\\d{2}$/;
  if (!iso.test(start) || !iso.test(end)) return 'format';
  const a = Date.parse(start + 'T00:00:00Z');
  const b = Date.parse(end + 'T00:00:00Z');
  if (Number.isNaN(a) || Number.isNaN(b)) return 'format';
  if (b < a) return 'order';
  if ((b - a) / 86_400_000 > maxDays) return 'too_long';
  return null;
}`,
    calls: [{ args: ['2026-01-01', '2026-01-31', 30], expected: null }, ['2026-01-01', '2026-02-01', 30], ['2026-01-01', '2026-01-01', 0], ['2026-01-02', '2026-01-01', 10], ['2026-1-1', '2026-01-02', 5], ['2026-01-01', '2026-13-01', 5], ['2024-02-28', '2024-03-01', 1], ['2024-02-28', '2024-03-01', 2], ['2026-01-01', 'x', 3]],
  },
  {
    lang: 'typescript',
    name: 'isValidTimeRange',
    query: 'Check a same-day time range "HH:MM-HH:MM" with two-digit 24-hour times whose end is strictly after its start.',
    code: `
function isValidTimeRange(text: string): boolean {
  const m = /^(\\d{2}):(\\d{2})-(\\d{2}):(\\d{2})$/.exec(text);
  if (m === null) return false;
  const [h1, m1, h2, m2] = m.slice(1).map(Number);
  if (h1 > 23 || h2 > 23 || m1 > 59 || m2 > 59) return false;
  return h1 * 60 + m1 < h2 * 60 + m2;
}`,
    calls: [{ args: ['09:00-17:30'], expected: true }, ['17:30-09:00'], ['09:00-09:00'], ['09:00-09:01'], ['24:00-25:00'], ['23:59-23:58'], ['00:00-23:59'], ['9:00-17:30'], ['09:60-10:00'], ['08:00-08:59']],
  },
];
