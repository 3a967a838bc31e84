/**
 * Line diff of two short snippets (canonical vs a distractor) by longest common subsequence. Snippets are
 * tens of lines, so the O(n·m) table is trivial; hand-written rather than a dependency because that is all
 * the drill-down needs. When the edit is inside one line (the usual single-token mutation), the changed line
 * shows as one removal and one addition, plus `mark`: the differing middle of the two lines.
 */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

export function lineDiff(a: string, b: string): DiffLine[] {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: ' ', text: x[i] });
      i++;
      j++;
    } else if (L[i + 1][j] >= L[i][j + 1]) out.push({ op: '-', text: x[i++] });
    else out.push({ op: '+', text: y[j++] });
  }
  while (i < n) out.push({ op: '-', text: x[i++] });
  while (j < m) out.push({ op: '+', text: y[j++] });
  return out;
}

/** The changed middle of two lines: common prefix and suffix removed (what a single-token edit touched). */
export function changedSpan(a: string, b: string): { prefix: number; a: string; b: string } {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  return { prefix: p, a: a.slice(p, a.length - s), b: b.slice(p, b.length - s) };
}

/** Unified-style text with `context` unchanged lines around each change (the drill-down shows this). */
export function unifiedDiff(a: string, b: string, context = 2): string {
  const d = lineDiff(a, b);
  const keep = d.map(() => false);
  d.forEach((l, k) => {
    if (l.op !== ' ') for (let t = Math.max(0, k - context); t <= Math.min(d.length - 1, k + context); t++) keep[t] = true;
  });
  const lines: string[] = [];
  let skipped = false;
  d.forEach((l, k) => {
    if (!keep[k]) {
      if (!skipped) lines.push('…');
      skipped = true;
      return;
    }
    skipped = false;
    lines.push(`${l.op} ${l.text}`);
  });
  return lines.join('\n');
}
