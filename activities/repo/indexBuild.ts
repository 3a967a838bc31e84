import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Chunk, IndexManifest, InventoryEntry, Language, PathPolicy } from '../../schemas/repoIndex.ts';
import { canonicalPolicy, decidePath } from '../../core/repo/pathPolicy.ts';
import { builtContent } from '../../core/repo/buildOutput.ts';
import { fileCoverage, lineRanges } from '../../core/repo/coverage.ts';
import { DEFAULT_CHUNK_LIMITS, type ChunkLimits } from '../../core/repo/chunkBounds.ts';
import { chunkStructural, STRUCTURAL_CHUNKER_VERSION } from './chunkStructural.ts';
import { chunkText, TEXT_CHUNKER_VERSION } from './chunkText.ts';
import { chunkConfig, CONFIG_CHUNKER_VERSION } from './chunkConfig.ts';
import { ROLE_RULES_VERSION } from '../../core/repo/roles.ts';
import type { Embedder } from './embedder.ts';
import { DEFAULT_DENSE_TEXT, denseText, denseTextLabel, type DenseTextForm } from '../../core/repo/denseText.ts';
import { GitRepo } from './git.ts';
import { grammarOf, languageOf, UNPARSED_CODE, unparsedCodeLanguage } from './language.ts';
import { writeIndexBody, writeManifest, type LoadedIndex } from './indexStore.ts';
import { grammarVersions } from './treeSitter.ts';
import { lengthOrder } from '../../core/embeddings/lengthOrder.ts';

export const CHUNKER_VERSION = `${STRUCTURAL_CHUNKER_VERSION}+${CONFIG_CHUNKER_VERSION}+${TEXT_CHUNKER_VERSION}+${ROLE_RULES_VERSION}`;

export interface BuildIndexOptions {
  repoDir: string;
  revision: string;
  policy: PathPolicy;
  outDir: string;
  embedder?: Embedder;
  /** Maximum chunk size (default DEFAULT_CHUNK_LIMITS); recorded in the manifest and part of the build id. */
  limits?: ChunkLimits;
  /** Embedding batch size (texts per embed call). */
  batchSize?: number;
  /** What of a chunk is embedded (default DEFAULT_DENSE_TEXT); recorded in the manifest and part of the build id. */
  denseText?: DenseTextForm;
  log?: (msg: string) => void;
  /** Index code in a language without a grammar as plain text (`--allow-text-chunks`); otherwise a revision mostly in one is refused. */
  allowTextChunks?: boolean;
}

/** `repo index` refused: most code of the revision is in a language this index cannot parse. */
export class UnparsedCodeError extends Error {
  readonly code = 'UNPARSED_CODE';
  constructor(language: string, lines: number, codeLines: number) {
    super(`most code at this revision is ${language} (${lines} of ${codeLines} non-blank code lines), which has no grammar here: it would be indexed as plain text with no symbols or roles; pass --allow-text-chunks to index it so anyway`);
    this.name = 'UnparsedCodeError';
  }
}

/** A file's language for the manifest: its row's, or a known programming language without a grammar (`kotlin`), or `text`. */
function fileLanguage(path: string): string {
  const l = languageOf(path);
  return l === 'text' ? (unparsedCodeLanguage(path) ?? 'text') : l;
}

function tally(into: Map<string, { language: string; chunking: Chunking; files: number; lines: number }>, language: string, chunking: Chunking, lines: number): void {
  const key = `${language}\0${chunking}`;
  const t = into.get(key) ?? { language, chunking, files: 0, lines: 0 };
  t.files++;
  t.lines += lines;
  into.set(key, t);
}

const nonBlankLines = (text: string) => text.split('\n').filter((l) => l.trim()).length;

/** Non-blank lines of code without a grammar, of all code lines, and the largest such language. */
function unparsedShare(files: readonly { path: string; buf: Buffer }[]): { lines: number; codeLines: number; top: string | null; topLines: number } {
  const by = new Map<string, number>();
  let codeLines = 0;
  let lines = 0;
  for (const f of files) {
    if (f.buf.includes(0)) continue;
    const parsed = grammarOf(languageOf(f.path)) !== null;
    const other = parsed ? null : unparsedCodeLanguage(f.path);
    if (!parsed && !other) continue;
    const n = nonBlankLines(f.buf.toString('utf8'));
    codeLines += n;
    if (other) {
      lines += n;
      by.set(other, (by.get(other) ?? 0) + n);
    }
  }
  const top = [...by.entries()].sort((a, b) => b[1] - a[1])[0];
  return { lines, codeLines, top: top?.[0] ?? null, topLines: top?.[1] ?? 0 };
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** How a file was chunked: by its syntax tree, by its config keys, or as plain text. */
export type Chunking = 'structural' | 'config' | 'text';

/**
 * Chunks one file's text and says how: a parser failure falls back to the plain-text chunker, logged, and
 * reported as `text` (the manifest counts those lines as code indexed as text: no fallback is silent).
 */
export async function chunkFileReport(path: string, text: string, revision: string, log: (m: string) => void = () => {}, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Promise<{ chunks: Chunk[]; chunking: Chunking }> {
  const language = languageOf(path);
  const grammar = grammarOf(language);
  if (grammar) {
    try {
      return { chunks: await chunkStructural(path, text, language, grammar, revision, limits), chunking: 'structural' };
    } catch (e) {
      log(`${path}: structural chunking failed (${(e as Error).message}); using the text chunker`);
    }
  }
  if (language === 'json' || language === 'yaml' || language === 'toml') {
    const keyed = chunkConfig(path, text, language, revision, limits);
    if (keyed) return { chunks: keyed, chunking: 'config' };
  }
  return { chunks: chunkText(path, text, language, revision, limits), chunking: 'text' };
}

/** Chunks one file's text (chunkFileReport without the how). */
export async function chunkFile(path: string, text: string, revision: string, log: (m: string) => void = () => {}, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Promise<Chunk[]> {
  return (await chunkFileReport(path, text, revision, log, limits)).chunks;
}

/**
 * Vectors for every chunk, in chunk order, each embedded as its path, names and head (core/repo/denseText.ts):
 * a small encoder reads a few hundred tokens at most and pays for every one. Texts go to the embedder shortest first, in groups of
 * `groupSize`: a local model pads each batch to its longest text, so one long chunk in a batch of short
 * ones multiplies the work (the embedder's own batching sorts only within a call). Each vector is put
 * back at its chunk's position. Through the registry embedder, texts already in the embedding cache (an
 * earlier index of the same repository) are not embedded again.
 */
export async function embedChunks(chunks: readonly Chunk[], embedder: Embedder, groupSize: number, log: (m: string) => void = () => {}, form: DenseTextForm = DEFAULT_DENSE_TEXT): Promise<Float32Array[]> {
  const texts = chunks.map((c) => denseText(c, form));
  const order = lengthOrder(texts.map((t) => t.length));
  const vectors: Float32Array[] = new Array(chunks.length);
  for (let i = 0; i < order.length; i += groupSize) {
    const group = order.slice(i, i + groupSize);
    const out = await embedder.embed(group.map((k) => texts[k]), 'document');
    group.forEach((k, j) => (vectors[k] = out[j]));
    log(`embedded ${Math.min(i + groupSize, chunks.length)}/${chunks.length} chunks`);
  }
  return vectors;
}

/**
 * Builds an index of `revision` (from git's object store, never the working tree). The build id is a hash
 * of everything that determines the index's content, so rebuilding the same inputs gives the same id.
 */
export async function buildIndex(opts: BuildIndexOptions): Promise<LoadedIndex> {
  const log = opts.log ?? (() => {});
  const git = new GitRepo(opts.repoDir);
  const revision = await git.resolve(opts.revision);
  const policyHash = sha(canonicalPolicy(opts.policy)).slice(0, 16);
  const embedderInfo = opts.embedder?.info ?? null;
  const limits = opts.limits ?? DEFAULT_CHUNK_LIMITS;
  const chunkLimits = { max_lines: limits.maxLines, max_tokens: limits.maxTokens };
  const form = opts.denseText ?? DEFAULT_DENSE_TEXT;
  // Only an index with vectors depends on the dense text form (a lexical index keeps its id).
  const denseForm = embedderInfo ? denseTextLabel(form) : undefined;
  const buildId = sha(JSON.stringify([revision, policyHash, CHUNKER_VERSION, chunkLimits, embedderInfo, ...(denseForm ? [denseForm] : [])])).slice(0, 16);
  const manifest: IndexManifest = {
    repository: await git.identity(),
    repository_dir: resolve(opts.repoDir),
    revision,
    index_build_id: buildId,
    chunker_version: CHUNKER_VERSION,
    chunk_limits: chunkLimits,
    embedder: embedderInfo,
    ...(denseForm ? { dense_text: denseForm } : {}),
    policy: opts.policy,
    policy_hash: policyHash,
    completed: false,
    created_at: new Date().toISOString(),
    files: 0,
    chunk_count: 0,
    versions: grammarVersions(),
  };
  const tree = await git.lsTree(revision);
  const decisions = tree.map((e) => ({ e, d: decidePath(e.path, e.bytes, opts.policy) }));
  if (opts.policy.detectBuildOutput) {
    // Committed although the repository's own .gitignore says it is not source: build output someone force-added.
    const ignored = await git.ignoredAt(tree, decisions.filter((x) => x.d.included).map((x) => x.e.path));
    for (const x of decisions) {
      const rule = ignored.get(x.e.path);
      if (rule) x.d = { included: false, reason: `build-output:gitignored:${rule}` };
    }
  }
  const blobs = await git.readBlobs(decisions.filter((x) => x.d.included).map((x) => x.e.oid));
  // No silent fallback: a revision whose code is mostly in a language without a grammar is refused before
  // anything is written, unless the user asked for plain-text chunks.
  const unparsed = unparsedShare(decisions.filter((x) => x.d.included).map((x) => ({ path: x.e.path, buf: blobs.get(x.e.oid)! })));
  if (unparsed.top && unparsed.lines * 2 > unparsed.codeLines && !opts.allowTextChunks) throw new UnparsedCodeError(unparsed.top, unparsed.topLines, unparsed.codeLines);
  writeManifest(opts.outDir, manifest);
  const inventory: InventoryEntry[] = [];
  const chunks: Chunk[] = [];
  const coverage = { nonblank_lines: 0, uncovered_lines: 0, files_with_holes: 0 };
  const languages = new Map<string, { language: string; chunking: Chunking; files: number; lines: number }>();
  for (const { e, d } of decisions) {
    let { included, reason } = d;
    let fileChunks: Chunk[] = [];
    let uncovered: string | undefined;
    if (included) {
      const buf = blobs.get(e.oid)!;
      if (buf.includes(0)) {
        included = false;
        reason = 'binary';
      } else {
        const text = buf.toString('utf8');
        const built = opts.policy.detectBuildOutput ? builtContent(e.path, text) : null;
        if (built) {
          inventory.push({ path: e.path, oid: e.oid, bytes: e.bytes, included: false, reason: `build-output:${built}`, chunks: 0 });
          continue;
        }
        const report = await chunkFileReport(e.path, text, revision, log, limits);
        fileChunks = report.chunks;
        const cov = fileCoverage(text, fileChunks);
        tally(languages, fileLanguage(e.path), report.chunking, cov.nonblank);
        coverage.nonblank_lines += cov.nonblank;
        if (cov.uncovered.length) {
          coverage.uncovered_lines += cov.uncovered.length;
          coverage.files_with_holes++;
          uncovered = lineRanges(cov.uncovered);
          log(`${e.path}: ${cov.uncovered.length} non-blank line(s) in no chunk (${uncovered})`);
        }
      }
    }
    inventory.push({ path: e.path, oid: e.oid, bytes: e.bytes, included, reason, chunks: fileChunks.length, ...(uncovered ? { uncovered_lines: uncovered } : {}) });
    chunks.push(...fileChunks);
  }
  let vectors: Float32Array[] | null = null;
  if (opts.embedder) vectors = await embedChunks(chunks, opts.embedder, opts.batchSize ?? 256, log, form);
  writeIndexBody(opts.outDir, inventory, chunks, vectors);
  const langs = [...languages.values()].sort((a, b) => b.lines - a.lines || a.language.localeCompare(b.language));
  const isCode = (l: string) => grammarOf(l as Language) !== null || UNPARSED_CODE.some((u) => u.language === l);
  const asText = langs.filter((l) => l.chunking === 'text' && isCode(l.language));
  const code_as_text = { lines: asText.reduce((n, l) => n + l.lines, 0), code_lines: langs.filter((l) => isCode(l.language)).reduce((n, l) => n + l.lines, 0), languages: asText.map((l) => l.language), allowed: opts.allowTextChunks === true };
  const done: IndexManifest = { ...manifest, completed: true, files: inventory.filter((x) => x.included).length, chunk_count: chunks.length, languages: langs, code_as_text, coverage };
  for (const l of asText) log(`${l.language}: ${l.lines} non-blank lines in ${l.files} file(s) indexed as plain text (no grammar${grammarOf(l.language as Language) ? ' for these files: parse failed' : ''})`);
  writeManifest(opts.outDir, done);
  log(`index ${buildId}: ${done.files} files, ${chunks.length} chunks at ${revision}; ${coverage.uncovered_lines} of ${coverage.nonblank_lines} non-blank lines in no chunk`);
  return { dir: opts.outDir, manifest: done, inventory, chunks, vectors };
}
