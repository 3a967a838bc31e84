import type { Chunk, Language } from '../../schemas/repoIndex.ts';
import { fileRole } from '../../core/repo/roles.ts';
import { boundSpans, byteOffsets, chunksFromParts, DEFAULT_CHUNK_LIMITS, lineNumbers, type ChunkLimits } from '../../core/repo/chunkBounds.ts';

/**
 * Plain-text chunker for files without a grammar: Markdown splits at headings, everything else into
 * windows of WINDOW lines. Markdown headings become the chunk's symbols (so a query naming a section finds
 * it); code-looking identifiers (camelCase, snake_case, `backticked`) become references.
 */
export const TEXT_CHUNKER_VERSION = 'text-2';
const WINDOW = 40;

const CODEISH = /`([A-Za-z_$][\w$.]*)`|\b([a-z]+[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[a-z0-9]+_[a-z0-9_]+)\b/g;

function refsOf(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(CODEISH)) out.add(m[1] ?? m[2]);
  return [...out].sort().slice(0, 200);
}

export function chunkText(path: string, source: string, language: Language, revision: string, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Chunk[] {
  const lines = source.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const bounds: { from: number; to: number; heading?: string }[] = [];
  if (language === 'markdown') {
    let from = 0;
    let heading: string | undefined;
    lines.forEach((l, i) => {
      const h = /^#{1,6}\s+(.*)$/.exec(l);
      if (h && i > from) {
        bounds.push({ from, to: i - 1, heading });
        from = i;
      }
      if (h) heading = h[1].trim();
    });
    if (from < lines.length) bounds.push({ from, to: lines.length - 1, heading });
  } else {
    for (let from = 0; from < lines.length; from += WINDOW) bounds.push({ from, to: Math.min(lines.length, from + WINDOW) - 1 });
  }
  const role = fileRole(path, source) ?? (language === 'json' || language === 'yaml' || language === 'toml' ? 'config' : 'docs');
  // Markdown sections longer than a window are cut into windows too (same heading).
  const pieces = bounds.flatMap((b) => {
    const out: typeof bounds = [];
    for (let f = b.from; f <= b.to; f += WINDOW * 2) out.push({ from: f, to: Math.min(b.to, f + WINDOW * 2 - 1), heading: b.heading });
    return out;
  });
  // Spans as string offsets, cut to the limits (blank lines and headings are the preferred cut points).
  const starts = [0];
  for (const l of lines) starts.push(starts[starts.length - 1] + l.length + 1);
  const spans = pieces.map((p) => ({ start: starts[p.from], end: Math.min(starts[p.to + 1] - 1, source.length) }));
  const cutPoints = () => new Map(lines.flatMap((l, i) => (i > 0 && (!lines[i - 1].trim() || /^#{1,6}\s/.test(l)) ? [[i, 1] as [number, number]] : [])));
  const byteAt = byteOffsets(source);
  const lineOf = lineNumbers(source);
  return chunksFromParts(source, boundSpans(source, spans, cutPoints, limits), { path, revision, language, lineOf, byteAt, maxTokens: limits.maxTokens }, (b, text) => {
    const heading = pieces[b.of].heading;
    return { symbols: heading ? [heading] : [], references: refsOf(text), role };
  });
}
