import type { Chunk } from '../../schemas/repoIndex.ts';

/**
 * The text a chunk is embedded as for dense retrieval. A small encoder reads only its first few hundred
 * tokens (all-MiniLM-L6-v2: 256) and its cost grows with every token it reads, so the model is given what
 * identifies a chunk, not its whole body: the file path, the names the chunk defines (so a later part of a
 * split definition still names its symbol), then the head of the chunk text (leading doc comment,
 * signature, first lines of the body) cut at a line boundary within `headChars` characters.
 *
 * `headChars: null` embeds the whole text (the model truncates it), as indexes did before heads.
 */
export interface DenseTextForm {
  /** Characters of chunk text kept (whole lines; a first line longer than this is cut); null = all. */
  headChars: number | null;
}

/**
 * The whole chunk, because no head passed a rule fixed before the heads were compared
 * (bench/repo-dense-index.ts --gold; figures in docs/dense-indexing.md): the head feeding the fewest tokens
 * whose dense and hybrid pass rates and MRR are each no lower than the whole chunk's. On the half of data/gold
 * that chose, every head from 64 to 320 characters lost hybrid MRR. On a fresh gold set written afterwards for a
 * second codebase (data/second-codebase/requests-2.32.3.jsonl, 35 cases), head:256 and head:128 both lost
 * hybrid pass rate and MRR (head:128: 0.714/0.488 vs 0.743/0.570). A head (`--dense-head-chars 128`) embeds
 * 2.4-3x fewer tokens, for that quality.
 */
export const DEFAULT_DENSE_TEXT: DenseTextForm = { headChars: null };

/** The form as recorded in the index manifest and hashed into the build id. */
export const denseTextLabel = (f: DenseTextForm) => (f.headChars === null ? 'full' : `head:${f.headChars}`);

/** The first lines of `text` that fit in `maxChars` (at least a cut of the first line), trailing blanks dropped. */
export function headOf(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.lastIndexOf('\n', maxChars);
  const head = cut > 0 ? text.slice(0, cut) : text.slice(0, maxChars);
  return head.replace(/\s+$/, '');
}

export function denseText(c: Chunk, form: DenseTextForm = DEFAULT_DENSE_TEXT): string {
  if (form.headChars === null) return `${c.file}\n${c.text}`;
  // At most 8 names: a small class lists every `Class.member`, and the names must not crowd out the head.
  const names = c.symbols.length ? `${c.symbols.slice(0, 8).join(' ')}\n` : '';
  return `${c.file}\n${names}${headOf(c.text, form.headChars)}`;
}
