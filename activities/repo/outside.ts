import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GoldCase } from '../../schemas/gold.ts';
import type { RetrievalEndpoint } from '../../schemas/retrievalEndpoint.ts';
import type { Scored } from '../../core/repo/fusion.ts';
import { checkOutsideRun, type IndexView } from '../../core/repo/outsideRun.ts';
import { sameRevision } from '../../core/repo/evidence.ts';
import type { RunRow } from '../../core/ranking/imported.ts';
import { readRunFile, type RunFormat } from '../importers/runFile.ts';
import { textHash } from '../embeddings/cache.ts';
import { postJson } from '../embeddings/http.ts';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from '../embeddings/retry.ts';
import { hitsOf } from '../endpoint/retrieve.ts';
import type { EndpointCache } from '../endpoint/cache.ts';
import { booked } from '../rerank/requestBook.ts';
import { chunksByFile } from './pipeline.ts';
import { sha256 } from './runOutput.ts';
import type { SearchOptions } from './retrievers.ts';
import type { LoadedIndex } from './indexStore.ts';

/**
 * Repository retrievers we do not run ourselves, behind the built-ins' interface but asked per gold case (an outside
 * run is keyed by case id, and a service is sent the case's id with its query):
 *   imported  a run file (TREC, CSV, TSV, JSONL, Parquet, Arrow) of (case id, chunk id or file[:lines], score[, rank])
 *   endpoint  a retrieval endpoint (docs/own-retriever.md), asked live for each case's query
 * Both are checked against the index build (core/repo/outsideRun.ts): an id that names no chunk stops the run with one
 * line before anything is written. The pipeline's filter (reliable context) and depth apply to what they return.
 */
export interface CaseRetriever {
  readonly name: string;
  search(testCase: GoldCase, opts: SearchOptions): Promise<Scored[]>;
  /** Asks for every case's answer up front (a window of requests in flight), so a bad answer stops the run before any case is scored. */
  prepare?(cases: readonly GoldCase[]): Promise<void>;
}

export function indexView(index: LoadedIndex): IndexView {
  const byId = new Map(index.chunks.map((c) => [c.chunk_id, c]));
  const inventory = new Map(index.inventory.map((e) => [e.path, e]));
  return {
    indexBuildId: index.manifest.index_build_id,
    byId,
    byFile: chunksByFile(index.chunks),
    whyNotIndexed: (p) => {
      const e = inventory.get(p);
      if (!e) return undefined;
      return e.included ? 'no chunk: the file has no searchable text' : e.reason;
    },
  };
}

/** Reads and checks a run file now (one line, exit 2, on any problem), so no case is evaluated from a bad file. */
export function importedRetriever(name: string, file: string, cases: readonly GoldCase[], index: LoadedIndex, format?: RunFormat): { retriever: CaseRetriever; rows: number; merged: number; sha256: string; file: string } {
  const path = resolve(file);
  const rows = readRunFile(path, format);
  const view = indexView(index);
  // Cases pinned to another revision are refused before ranking (evalRun.ts): the file need not rank them.
  const live = cases.filter((c) => sameRevision(c.repositoryRevision, index.manifest.revision));
  const check = checkOutsideRun(rows, live.map((c) => c.id), view, { known: cases.map((c) => c.id) });
  if (check.error) throw new Error(`--rankings ${name}=${file}: ${check.error}`);
  return { retriever: filtered(name, check.ranked, view), rows: rows.length, merged: check.merged, sha256: sha256(readFileSync(path)), file: path };
}

/** The reliable-context filter applies to an outside ranking after the fact: it cannot search the filtered set itself. */
function filtered(name: string, ranked: Map<string, Scored[]>, view: IndexView): CaseRetriever {
  return {
    name,
    async search(testCase, opts) {
      const list = ranked.get(testCase.id) ?? [];
      const keep = opts.filter ? list.filter((s) => opts.filter!(view.byId.get(s.id)!)) : list;
      return keep.slice(0, opts.topK);
    },
  };
}

export interface EndpointRetrieverOptions {
  endpoint: RetrievalEndpoint;
  index: LoadedIndex;
  cache: EndpointCache;
  env: Readonly<Record<string, string | undefined>>;
  /** The run folder whose ledger gets a row per search sent (runs/<run-id>). */
  runDir: string;
  retry?: RetryPolicy;
  log?: (msg: string) => void;
}

/**
 * A retrieval endpoint as a live repository retriever: POST <url>/search {query_id: case id, query, k} →
 * {results: [{corpus_id: chunk id or file[:lines], score}]}. With `index`, the chunks of the build go to <url>/index
 * once, before the first search. Searches are retried (429, 5xx, connection errors; Retry-After), each is a ledger row,
 * and answers are cached by (endpoint, URL, k, index build, query text); an answer naming no chunk of the build stops
 * the run (one line, exit 2). A case the service answers with nothing has no candidates.
 */
export function endpointRetriever(opts: EndpointRetrieverOptions): CaseRetriever {
  const e = opts.endpoint;
  const url = ((e.url_env ? opts.env[e.url_env] : undefined) ?? e.url ?? '').replace(/\/+$/, '');
  if (!url) throw new Error(`endpoint ${e.endpoint_id}: no URL: set ${e.url_env ?? 'url'}`);
  const key = e.api_key_env ? opts.env[e.api_key_env] : undefined;
  if (e.api_key_env && !key) throw new Error(`endpoint ${e.endpoint_id}: no API key: set ${e.api_key_env}`);
  const view = indexView(opts.index);
  // Ids in an answer name chunks of one build: answers for another build are other answers.
  const fp = JSON.stringify([url, e.k, opts.index.manifest.index_build_id]);
  const retry = opts.retry ?? DEFAULT_RETRY;
  const onRetry = (what: string) => (ev: { attempt: number; delayMs: number; info: { status: number | null } }) =>
    opts.log?.(`${e.endpoint_id}: ${what}: ${ev.info.status ?? 'connection error'}, retry ${ev.attempt} in ${Math.round(ev.delayMs)} ms`);
  let indexed: Promise<unknown> | null = null;
  const sendIndex = () => {
    const chunks = opts.index.chunks;
    // The functional contract's fields (corpus_id, code, function_name), then what a repository search can use.
    const corpus = chunks.map((c) => ({ corpus_id: c.chunk_id, code: c.text, function_name: c.symbols[0] ?? '', file: c.file, start_line: c.start_line, end_line: c.end_line, language: c.language, symbols: c.symbols, role: c.role }));
    const corpus_sha256 = createHash('sha256').update(JSON.stringify(corpus)).digest('hex');
    return withRetry(() => postJson(`${url}/index`, key, { corpus, corpus_sha256, index_build_id: opts.index.manifest.index_build_id, revision: opts.index.manifest.revision }), retry, onRetry('index'));
  };
  const name = `endpoint:${e.endpoint_id}`;
  const answered = new Map<string, Scored[]>();
  const answer = async (testCase: GoldCase): Promise<Scored[]> => {
    const known = answered.get(testCase.id);
    if (known) return known;
    const cached = opts.cache.get(e.endpoint_id, fp, textHash(testCase.query));
    let ranked: Scored[];
    if (cached) ranked = checked(cached, testCase, view, `${name} (${url})`);
    else {
      if (e.index) await (indexed ??= sendIndex());
      const perSearch = (e.price_usd_per_thousand_queries ?? 0) / 1000;
      const at = { runDir: opts.runDir, sweep_id: 'retrieve' as const, config_id: name, fingerprint: fp, side: 'search', provider: 'endpoint', model: url };
      const send = () => postJson(`${url}/search`, key, { query_id: testCase.id, query: testCase.query, k: e.k });
      const body = await withRetry(() => booked(at, [testCase.query], [textHash(testCase.query)], perSearch, send, () => ({ tokens: null, cost_usd: perSearch })), retry, onRetry(testCase.id));
      const hits = hitsOf(e.endpoint_id, testCase.id, body).slice(0, e.k);
      // Checked before it is cached: a bad answer is asked again next time rather than replayed.
      ranked = checked(hits, testCase, view, `${name} (${url})`);
      opts.cache.put(e.endpoint_id, fp, textHash(testCase.query), hits);
    }
    answered.set(testCase.id, ranked);
    return ranked;
  };
  return {
    name,
    async prepare(cases) {
      let next = 0;
      const worker = async () => {
        while (next < cases.length) await answer(cases[next++]);
      };
      await Promise.all(Array.from({ length: Math.min(e.concurrency, cases.length) }, worker));
    },
    async search(testCase, sopts) {
      return filtered(name, new Map([[testCase.id, await answer(testCase)]]), view).search(testCase, sopts);
    },
  };
}

function checked(hits: readonly { corpus_id: string; score: number }[], testCase: GoldCase, view: IndexView, who: string): Scored[] {
  const rows: RunRow[] = hits.map((h, i) => ({ query_id: testCase.id, corpus_id: h.corpus_id, score: h.score, where: `${testCase.id} results[${i}]` }));
  const check = checkOutsideRun(rows, [testCase.id], view, { allowEmpty: true });
  if (check.error) throw new Error(`${who}: ${check.error}`);
  return check.ranked.get(testCase.id) ?? [];
}
