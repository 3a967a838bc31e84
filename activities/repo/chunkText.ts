import type { Chunk, Language } from '../../schemas/repoIndex.ts';
import { fileRole } from '../../core/repo/roles.ts';

/**
 * Plain-text chunker for files without a grammar: Markdown splits at headings, everything else into
 * windows of WINDOW lines. Markdown headings become the chunk's symbols (so a query naming a section finds
 * it); code-looking identifiers (camelCase, snake_case, `backticked`) become references.
 */
export const TEXT_CHUNKER_VERSION = 'text-1';
const WINDOW = 40;

const CODEISH = /`([A-Za-z_$][\w$.]*)`|\b([a-z]+[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[a-z0-9]+_[a-z0-9_]+)\b/g;

function refsOf(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(CODEISH)) out.add(m[1] ?? m[2]);
  return [...out].sort().slice(0, 200);
}

export function chunkText(path: string, source: string, language: Language, revision: string): Chunk[] {
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
  const role = fileRole(path, source) ?? (language === 'json' || language === 'yaml' ? 'config' : 'docs');
  // Markdown sections longer than a window are cut into windows too (same heading).
  const pieces = bounds.flatMap((b) => {
    const out: typeof bounds = [];
    for (let f = b.from; f <= b.to; f += WINDOW * 2) out.push({ from: f, to: Math.min(b.to, f + WINDOW * 2 - 1), heading: b.heading });
    return out;
  });
  const lineByte: number[] = [0];
  for (const l of lines) lineByte.push(lineByte[lineByte.length - 1] + Buffer.byteLength(l) + 1);
  return pieces
    .map((p) => ({ p, text: lines.slice(p.from, p.to + 1).join('\n') }))
    .filter(({ text }) => text.trim().length > 0)
    .map(({ p, text }) => ({
      chunk_id: `${path}:${p.from + 1}-${p.to + 1}`,
      file: path,
      revision,
      language,
      start_line: p.from + 1,
      end_line: p.to + 1,
      start_byte: lineByte[p.from],
      end_byte: Math.min(lineByte[p.to + 1], Buffer.byteLength(source)),
      symbols: p.heading ? [p.heading] : [],
      references: refsOf(text),
      role,
      text,
    }));
}
