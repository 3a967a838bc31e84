import { createHash } from 'node:crypto';
import type { RetrievalEndpoint } from '../../schemas/retrievalEndpoint.ts';
import { checkRun, type RunRow } from '../../core/ranking/imported.ts';
import { textHash } from '../embeddings/cache.ts';
import { ConnectionError, HttpStatusError, postJson } from '../embeddings/http.ts';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from '../embeddings/retry.ts';
import { ProviderResponseError } from '../embeddings/types.ts';
import { EXIT_CODES, StopError } from '../faults.ts';
import type { ImportManifest } from '../scoring/configs.ts';
import { loadRunBenchmark, targetDir, writeRankingsFolder } from '../scoring/importConfig.ts';
import type { EndpointCache, EndpointHit } from './cache.ts';
import { booked } from '../rerank/requestBook.ts';

export interface RetrieveOptions {
  runDir: string;
  endpoint: RetrievalEndpoint;
  /** Configuration id of the result (default: the endpoint id). */
  name?: string;
  replace?: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cache: EndpointCache;
  retry?: RetryPolicy;
  /** Longest wait for one request's answer (default 60 s). */
  requestTimeoutMs?: number;
  /** Longest the whole command waits on the service (default 30 min): then it stops, what was answered cached. */
  deadlineMs?: number;
  log?: (msg: string) => void;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_DEADLINE_MS = 30 * 60_000;

const usage = (m: string) => new StopError(m, EXIT_CODES.usage);

/** A search answer's hits, or a ProviderResponseError naming what is wrong with it (not retried: the service would say it again). */
export function hitsOf(endpointId: string, queryId: string, body: unknown): EndpointHit[] {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new ProviderResponseError(endpointId, `${queryId}: the answer has no "results" list`);
  return results.map((r, i) => {
    const h = r as { corpus_id?: unknown; score?: unknown } | null;
    if (typeof h?.corpus_id !== 'string') throw new ProviderResponseError(endpointId, `${queryId}: results[${i}].corpus_id is not a string`);
    if (typeof h.score !== 'number' || !Number.isFinite(h.score)) throw new ProviderResponseError(endpointId, `${queryId}: results[${i}].score is not a finite number`);
    return { corpus_id: h.corpus_id, score: h.score };
  });
}

/**
 * `execretrieval retrieve`: asks a retrieval endpoint for every benchmark query's top k and keeps its answers as a
 * configuration of the run (a rankings folder, like an imported run), which `score` then executes and reports like any
 * other. Searches are retried on 429 / 5xx / connection errors (Retry-After honoured) and cached by (endpoint, URL and
 * k, query text); the corpus goes to `<url>/index` first when the endpoint asks for it. Answers are checked like an
 * imported run (unknown corpus ids, duplicates): one line, exit 2, nothing written. A query the service answers with
 * nothing ranks every snippet tied.
 */
export async function retrieveRun(opts: RetrieveOptions): Promise<{ dir: string; manifest: ImportManifest }> {
  const e = opts.endpoint;
  const name = opts.name ?? e.endpoint_id;
  const dir = targetDir(opts.runDir, name, opts.replace ?? false);
  const url = ((e.url_env ? opts.env[e.url_env] : undefined) ?? e.url ?? '').replace(/\/+$/, '');
  if (!url) throw usage(`${e.endpoint_id}: no URL: set ${e.url_env ?? 'url'}`);
  const key = e.api_key_env ? opts.env[e.api_key_env] : undefined;
  if (e.api_key_env && !key) throw usage(`${e.endpoint_id}: no API key: set ${e.api_key_env}`);
  const bench = loadRunBenchmark(opts.runDir);
  const fp = JSON.stringify([url, e.k]);
  const answers = new Map<string, EndpointHit[]>();
  const todo = bench.queries.filter((q) => {
    const hit = opts.cache.get(e.endpoint_id, fp, textHash(q.query));
    if (hit) answers.set(q.query_id, hit);
    return !hit;
  });
  const stats = { requests: 0, cached: answers.size, index_sent: false };
  const retry = opts.retry ?? DEFAULT_RETRY;
  let lastFault = '';
  const onRetry = (what: string) => (ev: { attempt: number; delayMs: number; error: unknown }) => {
    lastFault = (ev.error as Error).message;
    opts.log?.(`${e.endpoint_id}: ${what}: ${lastFault}; retry ${ev.attempt} in ${Math.round(ev.delayMs)} ms`);
  };
  const requestMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  // One deadline over every request and every wait between retries: a hanging service ends the command, never a loop.
  // The first fault stops the other lanes too (their requests and retry waits end at once).
  const deadline = AbortSignal.timeout(deadlineMs);
  const stop = new AbortController();
  const signal = AbortSignal.any([deadline, stop.signal]);
  const post = (path: string, body: unknown) => postJson(`${url}${path}`, key, body, requestMs, signal);
  const answeredSoFar = () => `${answers.size} of ${bench.queries.length} queries answered (cached: a rerun continues from there)`;
  const serviceFault = (err: unknown): never => {
    if (stop.signal.aborted) throw err; // another lane's fault is the one reported
    stop.abort(err);
    if (deadline.aborted) {
      const last = lastFault ? ` (last: ${lastFault})` : '';
      throw new StopError(`${e.endpoint_id} (${url}): no complete answer within the deadline of ${deadlineMs / 1000} s (--deadline)${last}; ${answeredSoFar()}`, EXIT_CODES.infra);
    }
    if (err instanceof ConnectionError || (err instanceof HttpStatusError && err.status >= 500)) {
      throw new StopError(`${e.endpoint_id}: ${err.message} (after ${retry.maxAttempts} tries); ${answeredSoFar()}`, EXIT_CODES.infra);
    }
    throw err;
  };
  if (todo.length && e.index) {
    const corpus = bench.corpus.map((c) => ({ corpus_id: c.corpus_id, code: c.code, function_name: c.function_name }));
    const corpus_sha256 = createHash('sha256').update(JSON.stringify(corpus)).digest('hex');
    await withRetry(() => post('/index', { corpus, corpus_sha256 }), retry, onRetry('index'), signal).catch(serviceFault);
    stats.index_sent = true;
  }
  const corpusIds = new Set(bench.corpusIndex.keys());
  // A fixed window of searches in flight; each answer is cached as soon as it arrives (a killed run keeps them).
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const q = todo[next++];
      const perSearch = (e.price_usd_per_thousand_queries ?? 0) / 1000;
      const at = { runDir: opts.runDir, sweep_id: 'retrieve' as const, config_id: `endpoint:${e.endpoint_id}`, fingerprint: fp, side: 'search', provider: 'endpoint', model: url };
      const search = () => post('/search', { query_id: q.query_id, query: q.query, k: e.k });
      const body = await withRetry(() => booked(at, [q.query], [textHash(q.query)], perSearch, search, () => ({ tokens: null, cost_usd: perSearch })), retry, onRetry(q.query_id), signal).catch(serviceFault);
      stats.requests++;
      const hits = hitsOf(e.endpoint_id, q.query_id, body).slice(0, e.k);
      // Checked before it is cached: an answer naming unknown or repeated ids (reported below, for every query at
      // once) or none at all is not kept, so once the service is fixed the next run asks again.
      const own = checkRun(hits.map((h, i) => ({ query_id: q.query_id, corpus_id: h.corpus_id, score: h.score, where: `${q.query_id} results[${i}]` })), [q.query_id], corpusIds, { partial: true });
      if (hits.length && !own.error) opts.cache.put(e.endpoint_id, fp, textHash(q.query), hits);
      answers.set(q.query_id, hits);
    }
  };
  await Promise.all(Array.from({ length: Math.min(e.concurrency, todo.length) }, worker));
  const rows: RunRow[] = bench.queries.flatMap((q) => answers.get(q.query_id)!.map((h, i) => ({ query_id: q.query_id, corpus_id: h.corpus_id, score: h.score, where: `${q.query_id} results[${i}]` })));
  // Queries answered with nothing are allowed (partial: true here only silences "missing"; they are ranked all tied).
  const check = checkRun(rows, bench.queries.map((q) => q.query_id), corpusIds, { partial: true });
  if (check.error) throw usage(`${e.endpoint_id} (${url}): ${check.error}`);
  const manifest: ImportManifest = {
    config_id: name,
    kind: 'endpoint',
    sources: [],
    rows: rows.length,
    n_queries: bench.queries.length,
    covers: null,
    endpoint: { endpoint_id: e.endpoint_id, url, k: e.k, ...stats, empty_answers: check.missing.length },
  };
  writeRankingsFolder(dir, rows, manifest);
  return { dir, manifest };
}
