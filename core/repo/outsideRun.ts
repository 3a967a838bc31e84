import type { Chunk } from '../../schemas/repoIndex.ts';
import { rankContradictions, type RunRow } from '../ranking/imported.ts';
import { byScoreThen, type Scored } from './fusion.ts';

/**
 * Rankings of a repository retriever we did not run (a run file, a search service's answers), checked against the
 * index build before anything is scored. A row names a gold case and one of:
 *   a chunk id of the build        `src/a.ts:12-40` (our ids are file:start-end; `~N` marks a repeated span)
 *   a line range of an indexed file `src/a.ts:15-20` → the chunk of that file overlapping it most (the earlier on a tie)
 *   one line                        `src/a.ts:17`    → the chunk holding it
 *   a whole file                    `src/a.ts`       → every chunk of the file, in file order, at the row's score
 * File, symbols, role and revision then come from the index (as a verified replay takes them, core/repo/replay.ts),
 * never from the outside system. Rows are ordered by score, exact ties in the shared keyed order of the row's id
 * (fusion.ts byScoreThen, as the built-in retrievers break theirs), so a run written from our own ranking reads back
 * in the same order; a chunk reached twice (two line ranges inside one chunk) keeps its first, best place.
 */
export interface IndexView {
  indexBuildId: string;
  byId: ReadonlyMap<string, Chunk>;
  /** Chunks per file, in file order. */
  byFile: ReadonlyMap<string, readonly Chunk[]>;
  /** Why a path of the revision is not searchable (excluded, too large, binary), when it is in the tree but not indexed. */
  whyNotIndexed: (path: string) => string | undefined;
}

/** The chunks a row's id names, or why it names none. */
export function resolveTarget(id: string, view: IndexView): readonly Chunk[] | string {
  const exact = view.byId.get(id);
  if (exact) return [exact];
  const m = /^(.+):(\d+)(?:-(\d+))?$/.exec(id);
  const file = m && view.byFile.has(m[1]) ? m[1] : id;
  const chunks = view.byFile.get(file);
  if (!chunks) {
    const path = m && !view.byFile.has(id) ? m[1] : id;
    const why = view.whyNotIndexed(path);
    return why ? `${path} is not indexed (${why})` : `neither a chunk id nor a file of index build ${view.indexBuildId}`;
  }
  if (file === id) return chunks;
  const from = Number(m![2]);
  const to = m![3] === undefined ? from : Number(m![3]);
  if (from < 1 || to < from) return `lines ${from}-${to}: not a line range`;
  let best: Chunk | undefined;
  let most = 0;
  for (const c of chunks) {
    const overlap = Math.min(to, c.end_line) - Math.max(from, c.start_line) + 1;
    if (overlap > most) [best, most] = [c, overlap];
  }
  return best ? [best] : `lines ${from}-${to} of ${file} are in no chunk (blank, or past the end of the file)`;
}

export interface OutsideCheck {
  /** One line naming every problem found (the first few of each kind), or null when the rows are usable. */
  error: string | null;
  /** Per gold case: its ranking over chunk ids, best first. */
  ranked: Map<string, Scored[]>;
  /** Rows whose chunk was already placed for that case by a better row (line ranges inside one chunk). */
  merged: number;
}

const SHOW = 3;
function named(kind: string, items: readonly string[]): string {
  const more = items.length > SHOW ? `, and ${items.length - SHOW} more` : '';
  return `${items.length} ${kind} (${items.slice(0, SHOW).join('; ')}${more})`;
}

const byScoreThenRowId = byScoreThen<{ id: string; score: number }>((r) => r.id);

/**
 * Checks rows against the gold cases and the index build: unknown case ids, ids that name no chunk, duplicate
 * (case, id) pairs, scores that are not finite, a rank column that contradicts the scores, and (unless
 * `allowEmpty`, for a service that may answer nothing) gold cases without a row. Every kind found goes into the one
 * error line; nothing is ranked from rows that fail.
 */
export function checkOutsideRun(rows: readonly RunRow[], caseIds: readonly string[], view: IndexView, opts: { allowEmpty?: boolean; known?: readonly string[] } = {}): OutsideCheck {
  // `known`: every case of the gold set, also those refused for their revision (a row for one is not an error).
  const cases = new Set([...caseIds, ...(opts.known ?? [])]);
  const unknownCase: string[] = [];
  const unknownId: string[] = [];
  const dup: string[] = [];
  const bad: string[] = [];
  const seen = new Map<string, string>();
  const hits = new Map<string, { id: string; score: number; chunks: readonly Chunk[] }[]>();
  for (const r of rows) {
    if (!cases.has(r.query_id)) unknownCase.push(`${r.where}: ${r.query_id}`);
    if (!Number.isFinite(r.score)) bad.push(`${r.where}: ${r.score}`);
    const key = `${r.query_id}\u0000${r.corpus_id}`;
    const first = seen.get(key);
    if (first) dup.push(`${r.where}: ${r.query_id} ${r.corpus_id} again (first at ${first})`);
    else seen.set(key, r.where);
    const target = resolveTarget(r.corpus_id, view);
    if (typeof target === 'string') unknownId.push(`${r.where}: ${r.corpus_id}: ${target}`);
    else (hits.get(r.query_id) ?? hits.set(r.query_id, []).get(r.query_id)!).push({ id: r.corpus_id, score: r.score, chunks: target });
  }
  const ranks = rankContradictions(rows);
  const listed = new Set(rows.map((r) => r.query_id));
  const missing = caseIds.filter((c) => !listed.has(c));
  const problems: string[] = [];
  if (rows.length === 0 && !opts.allowEmpty) problems.push('no rows');
  if (unknownCase.length) problems.push(named('unknown gold case ids', unknownCase));
  if (unknownId.length) problems.push(named(`ids not in index build ${view.indexBuildId}`, unknownId));
  if (dup.length) problems.push(named('duplicate (case, id) pairs', dup));
  if (bad.length) problems.push(named('scores that are not finite numbers', bad));
  if (ranks.length) problems.push(named('ranks that contradict the scores', ranks));
  if (missing.length && !opts.allowEmpty && rows.length) problems.push(`${named('gold cases with no row', missing)}: a run must rank something for every case it is evaluated on`);
  const ranked = new Map<string, Scored[]>();
  let merged = 0;
  if (!problems.length) {
    for (const [caseId, list] of hits) {
      const placed = new Set<string>();
      const out: Scored[] = [];
      for (const h of [...list].sort(byScoreThenRowId)) {
        let any = false;
        for (const c of h.chunks) {
          if (placed.has(c.chunk_id)) continue;
          placed.add(c.chunk_id);
          out.push({ id: c.chunk_id, score: h.score });
          any = true;
        }
        if (!any) merged++;
      }
      ranked.set(caseId, out);
    }
  }
  return { error: problems.length ? problems.join('; ') : null, ranked, merged };
}
