/**
 * Index coverage: the non-blank lines of a file that no chunk spans. A line no chunk holds can never be
 * retrieved, whatever the retriever, so the index build reports these per file and in total (the guide:
 * "inventory what is searchable" — a file can be included and still have holes).
 */
export interface FileCoverage {
  /** Non-blank lines in the file. */
  nonblank: number;
  /** 1-based numbers of non-blank lines inside no chunk's [start_line, end_line]. */
  uncovered: number[];
}

export function fileCoverage(source: string, spans: readonly { start_line: number; end_line: number }[]): FileCoverage {
  const lines = source.split('\n');
  const covered = new Uint8Array(lines.length + 2);
  for (const s of spans) for (let l = s.start_line; l <= Math.min(s.end_line, lines.length); l++) covered[l] = 1;
  const uncovered: number[] = [];
  let nonblank = 0;
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    nonblank++;
    if (!covered[i + 1]) uncovered.push(i + 1);
  });
  return { nonblank, uncovered };
}

/** Line numbers as compact ranges (`3-5,9`), for one-line reports. */
export function lineRanges(lines: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j] + 1) j++;
    out.push(i === j ? String(lines[i]) : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return out.join(',');
}
