import type { Chunk, Language } from '../../schemas/repoIndex.ts';

/**
 * Bounded chunks: no chunk longer than `maxLines` lines or `maxTokens` tokens, so a pass at cutoff k never
 * means an unbounded amount of context, and a dense model that reads only a chunk's first few hundred
 * tokens sees most of every chunk. An over-long definition is cut at structural boundaries: among the lines
 * a window may end before, the one where the shallowest syntax node starts (a statement of the function's
 * body rather than an argument inside it), latest first; a plain line cut only where no node starts.
 */
export interface ChunkLimits {
  maxLines: number;
  maxTokens: number;
}

export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxLines: 80, maxTokens: 1000 };

const TOKEN = /[A-Za-z0-9_$]+|[^\sA-Za-z0-9_$]/g;

/**
 * Tokens as the index counts them: identifier/number runs and single punctuation characters. An
 * approximation of a model tokenizer's count (BPE cuts long identifiers further, so it runs somewhat low),
 * the same for every retriever and model, which is what a context budget compared across them needs.
 */
export function approxTokens(text: string): number {
  let n = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.exec(text)) n++;
  return n;
}

/**
 * Splits the 0-based inclusive line range [from, to] into consecutive ranges within the limits.
 * `lineTokens[i]` is line i's token count; `cutDepth.get(i)` the depth of the shallowest node starting on
 * line i (absent: no node starts there). A single line over `maxTokens` is returned alone (the caller cuts
 * it within the line: see splitLine).
 */
export function boundLines(from: number, to: number, lineTokens: readonly number[], cutDepth: ReadonlyMap<number, number>, limits: ChunkLimits): [number, number][] {
  const out: [number, number][] = [];
  let start = from;
  while (start <= to) {
    // The furthest end the limits allow.
    let end = start;
    let tokens = lineTokens[start] ?? 0;
    while (end + 1 <= to && end + 1 - start + 1 <= limits.maxLines && tokens + (lineTokens[end + 1] ?? 0) <= limits.maxTokens) {
      end++;
      tokens += lineTokens[end] ?? 0;
    }
    if (end < to) {
      // Prefer ending just before the shallowest node start in (start, end + 1]; latest on ties.
      let best = -1;
      let bestDepth = Infinity;
      for (let cut = end + 1; cut > start; cut--) {
        const d = cutDepth.get(cut);
        if (d !== undefined && d < bestDepth) {
          best = cut;
          bestDepth = d;
        }
      }
      if (best > start) end = best - 1;
    }
    out.push([start, end]);
    start = end + 1;
  }
  return out;
}

/** Cut points (string offsets into `line`) that split one over-long line into pieces of at most `maxTokens` tokens. */
export function splitLine(line: string, maxTokens: number): number[] {
  const cuts: number[] = [];
  let n = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(line); m; m = TOKEN.exec(line)) {
    if (n === maxTokens) {
      cuts.push(m.index);
      n = 0;
    }
    n++;
  }
  return cuts;
}

/** A chunk's extent in its file as string offsets, end exclusive. */
export interface Span {
  start: number;
  end: number;
}

/** A bounded part of an input span: `of` is the input span's index, `part` its number within it (0 first). */
export interface BoundedSpan extends Span {
  of: number;
  part: number;
}

/** What a chunker says about one bounded part; the rest of the chunk is the same for every chunker. */
export type PartFacts = Pick<Chunk, 'symbols' | 'references' | 'role'>;

/**
 * Chunks from bounded parts: each part's text and positions, an id `<path>:<start>-<end>` (pieces on the
 * same lines merged into one chunk within `maxTokens`, else made unique with `~n`), later parts of one span linked to its first (`parent`), blank parts dropped. `facts` gives what only
 * the chunker knows (symbols, references, role).
 */
export function chunksFromParts(
  source: string,
  parts: readonly BoundedSpan[],
  at: { path: string; revision: string; language: Language; lineOf: (i: number) => number; byteAt: (i: number) => number; maxTokens?: number },
  facts: (part: BoundedSpan, text: string) => PartFacts,
): Chunk[] {
  const byId = new Map<string, { chunk: Chunk; start: number; of: number }>();
  const firstPart = new Map<number, string>();
  const seen = new Map<string, number>();
  const chunks: Chunk[] = [];
  for (const b of parts) {
    const text = source.slice(b.start, b.end);
    if (!text.trim()) continue;
    const startLine = at.lineOf(b.start);
    const endLine = at.lineOf(b.end);
    let id = `${at.path}:${startLine}-${endLine}`;
    const same = byId.get(id);
    // Two pieces on the same lines (two statements on one line) are one chunk: a second chunk of the same
    // lines would be a near-duplicate candidate under an id suffixed `~1`. Parts of one piece cut within a
    // line (a minified line over the token limit) stay apart, and so does a merge that would exceed it.
    if (same && same.of !== b.of && approxTokens(source.slice(same.start, b.end)) <= (at.maxTokens ?? Infinity)) {
      const f = facts(b, text);
      const c = same.chunk;
      const strong = (r: Chunk['role']) => r === 'definition' || r === 'declaration';
      Object.assign(c, {
        end_byte: at.byteAt(b.end),
        text: source.slice(same.start, b.end),
        symbols: [...new Set([...c.symbols, ...f.symbols])],
        references: [...new Set([...c.references, ...f.references])].sort(),
        role: !strong(c.role) && strong(f.role) ? f.role : c.role,
      });
      if (!firstPart.has(b.of)) firstPart.set(b.of, id);
      continue;
    }
    const dup = seen.get(id) ?? 0;
    seen.set(id, dup + 1);
    if (dup) id += `~${dup}`;
    const parent = firstPart.get(b.of);
    if (!parent) firstPart.set(b.of, id);
    chunks.push({
      chunk_id: id,
      file: at.path,
      revision: at.revision,
      language: at.language,
      start_line: startLine,
      end_line: endLine,
      start_byte: at.byteAt(b.start),
      end_byte: at.byteAt(b.end),
      ...facts(b, text),
      text,
      ...(parent ? { parent } : {}),
    });
    if (!dup) byId.set(id, { chunk: chunks[chunks.length - 1], start: b.start, of: b.of });
  }
  return chunks;
}

/**
 * Every span cut to the limits (spans already within them pass through unchanged). `cutDepth(span)` is
 * asked only for a span over a limit: it maps 0-based line numbers within it to the depth of the
 * shallowest syntax node starting there (see boundLines).
 */
export function boundSpans(source: string, spans: readonly Span[], cutDepth: (span: Span) => ReadonlyMap<number, number>, limits: ChunkLimits): BoundedSpan[] {
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (idx: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= idx) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const lineEnd = (l: number) => (l + 1 < starts.length ? starts[l + 1] - 1 : source.length);
  let lineTokens: number[] | null = null;
  const out: BoundedSpan[] = [];
  spans.forEach((s, of) => {
    const first = lineOf(s.start);
    const last = lineOf(s.end);
    if (last - first + 1 <= limits.maxLines && approxTokens(source.slice(s.start, s.end)) <= limits.maxTokens) {
      out.push({ ...s, of, part: 0 });
      return;
    }
    lineTokens ??= starts.map((st, l) => approxTokens(source.slice(st, lineEnd(l))));
    const depth = cutDepth(s);
    let part = 0;
    for (const [a, b] of boundLines(first, last, lineTokens, depth, limits)) {
      const start = a === first ? s.start : starts[a];
      const end = b === last ? s.end : lineEnd(b);
      const text = source.slice(start, end);
      const cuts = a === b && approxTokens(text) > limits.maxTokens ? splitLine(text, limits.maxTokens) : [];
      const points = [start, ...cuts.map((c) => start + c), end];
      for (let i = 0; i + 1 < points.length; i++) out.push({ start: points[i], end: points[i + 1], of, part: part++ });
    }
  });
  return out;
}

/**
 * 1-based line of a string index: one plus the newlines before it. The newline positions are found once per
 * file and each lookup is a binary search, so numbering every chunk is not quadratic in the file's length.
 */
export function lineNumbers(source: string): (index: number) => number {
  const newlines: number[] = [];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) newlines.push(i);
  return (index) => lineAtOffset(newlines, index);
}

/** 1-based line of an offset (string index or byte), given the sorted offsets of the newlines before and after it. */
export function lineAtOffset(newlines: readonly number[], index: number): number {
  let lo = 0;
  let hi = newlines.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (newlines[mid] < index) lo = mid + 1;
    else hi = mid;
  }
  return lo + 1;
}

/**
 * Byte offset of a string index. ASCII files (most source) map one to one; otherwise the byte length of
 * each line start is computed once and only the part of the line before the index is measured.
 */
export function byteOffsets(source: string): (index: number) => number {
  if (!/[^\x00-\x7f]/.test(source)) return (i) => i;
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  const bytes = [0];
  for (let l = 1; l < starts.length; l++) bytes.push(bytes[l - 1] + Buffer.byteLength(source.slice(starts[l - 1], starts[l])));
  const lineOf = lineNumbers(source);
  return (i) => {
    const l = lineOf(i) - 1;
    return bytes[l] + Buffer.byteLength(source.slice(starts[l], i));
  };
}
