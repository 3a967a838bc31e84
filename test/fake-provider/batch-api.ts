/**
 * The providers' batch APIs on the fake LLM server, so the real SDKs' batch methods run against them:
 *
 * OpenAI Batch API (SDK baseURL = <url>/v1)
 *   POST /v1/files (multipart: file, purpose)        GET /v1/files/<id>, GET /v1/files/<id>/content
 *   POST /v1/batches {input_file_id, endpoint, completion_window, metadata}
 *   GET  /v1/batches/<id>    GET /v1/batches?limit&after (newest first, cursor pages)    POST /v1/batches/<id>/cancel
 *   Input lines {custom_id, method: POST, url, body}; output lines {id, custom_id, response: {status_code,
 *   request_id, body}, error: null}; a request answered with an HTTP error goes to the error file with its status
 *   and error body; an expired or cancelled one goes there with `error: {code: batch_expired | batch_cancelled}`.
 * Anthropic Message Batches (SDK baseURL = <url>)
 *   POST /v1/messages/batches {requests: [{custom_id, params}]}    GET /v1/messages/batches/<id>
 *   GET  /v1/messages/batches?limit&after_id&before_id (newest first)    POST /v1/messages/batches/<id>/cancel
 *   GET  /v1/messages/batches/<id>/results: JSONL {custom_id, result: {type: succeeded|errored|canceled|expired}}
 * Gemini batch mode (SDK httpOptions.baseUrl = <url>; @google/genai `ai.batches`)
 *   POST /v1beta/models/<model>:batchGenerateContent {batch: {displayName, inputConfig: {requests: {requests:
 *        [{request, metadata}]}}}}: an Operation {name: batches/<id>, metadata: GenerateContentBatch, done}
 *   GET  /v1beta/batches/<id>    GET /v1beta/batches?pageSize&pageToken {operations, nextPageToken}
 *   POST /v1beta/batches/<id>:cancel
 *   An ended batch holds its results inline, in input order: metadata.output.inlinedResponses.inlinedResponses
 *   [{response: GenerateContentResponse with usageMetadata, metadata} | {error: {code, message, status}, metadata}];
 *   or, with `geminiResultsAsFile` (as Gemini does for large results), in a responses file
 *   (metadata.output.responsesFile = files/<id>, GET /v1beta/files/<id>:download?alt=media), one JSON line per
 *   request in input order: {key, response} | {key, error}.
 *   The list is served oldest first: Gemini documents no order, so a client must not rely on one. Only inline
 *   input (the file form answers 400 here). An expired batch answers nothing (Gemini: an expired job has no
 *   results), whatever `expireAfter` says.
 *
 * Shapes follow the providers' API references (OpenAI: Batch object, BatchRequestOutput and its error codes;
 * Anthropic: MessageBatch, MessageBatchIndividualResponse) and the SDK types in node_modules.
 *
 * A batch ends `delayMs` after its creation (the delay in force when it was created), evaluated whenever it is
 * looked at: no timers, so a test controls time by the delay alone. At its end every request is answered through
 * the same scripts as the real-time routes (`answer`, logged with `batch_id` and `custom_id`: the log is the
 * invoice), except that with `expireAfter = n` only the first n requests are answered and the rest expire
 * (not billed), as a batch that outlives its 24-hour window does. A cancelled batch answers nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoggedRequest, ScriptKind } from './llm-server.ts';

type Provider = LoggedRequest['provider'];
type Answer = { status: number; body: unknown; headers: Record<string, string> };

export interface BatchHooks {
  /** The server's own base URL (Anthropic's results_url points back at it). */
  url: () => string;
  requestOf(method: string, pathname: string, body: any): { provider: Provider; endpoint: string; model: string; prompt: string } | null;
  nextKind(prompt: string): ScriptKind;
  answer(provider: Provider, endpoint: string, model: string, body: any, prompt: string, kind: ScriptKind, batch: { batch_id: string; custom_id: string }): Answer;
}

/** One batch as the fake holds it (every provider). */
export interface FakeBatch {
  provider: 'openai' | 'anthropic' | 'gemini';
  id: string;
  created_ms: number;
  ends_ms: number;
  /** OpenAI: the batch's endpoint (`/v1/chat/completions`); Anthropic: `/v1/messages`; Gemini: `/v1beta/models/<model>:generateContent`. */
  endpoint: string;
  metadata: Record<string, string> | null;
  /** Gemini: the batch's display name (its only user-set label), and whether it answers in a file. */
  display_name: string | null;
  results_as_file: boolean;
  /** Gemini: custom_id is the request's `metadata.key`, and `request_metadata` its whole metadata (echoed back). */
  requests: { custom_id: string; body: any; request_metadata?: Record<string, string> }[];
  input_file_id: string | null;
  expire_after: number | null;
  cancelled_ms: number | null;
  /** Set once the batch has ended: per custom_id, what happened. */
  results: Map<string, { kind: 'answered'; answer: Answer } | { kind: 'expired' | 'cancelled' }> | null;
  output_file_id: string | null;
  error_file_id: string | null;
  /** Validation errors (OpenAI: the batch is `failed`). */
  errors: { code: string; message: string; line: number | null; param: string | null }[];
}

export interface FakeBatchApi {
  /** How long from creation until a batch ends (ms). */
  delayMs: number;
  /** Requests answered before a batch expires; the rest expire. null: batches never expire. */
  expireAfter: number | null;
  /** Gemini: batches created while this is set answer in a responses file instead of inline. */
  geminiResultsAsFile: boolean;
  /** Every batch created, in order (tests count creations: a kill must never make a second one). */
  readonly batches: FakeBatch[];
  /**
   * The next request on `route` takes effect (a file is stored, a batch created, a status read) but its answer is
   * lost: the connection is closed without a response, as when the client dies or the network drops right after
   * the provider acted. `hold` instead keeps the answer back until `release()` (a test kills the worker meanwhile).
   */
  dropNext(route: BatchRoute): void;
  holdNext(route: BatchRoute): { arrived: Promise<void>; release(): void };
  /** Requests per route so far (uploads, creates, retrieves, lists, file downloads). */
  readonly calls: Record<BatchRoute, number>;
  /** The route handler: true when it answered. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer): boolean;
}

export type BatchRoute = 'upload' | 'create' | 'retrieve' | 'list' | 'cancel' | 'content' | 'results';

interface FakeFile {
  id: string;
  purpose: string;
  filename: string;
  bytes: Buffer;
  created_at: number;
}

const secs = (ms: number) => Math.floor(ms / 1000);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const DAY_MS = 86_400_000;
/** Anthropic's custom_id rule (Message Batches reference): 1-64 of [a-zA-Z0-9_-]. */
const ANTHROPIC_CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

function send(res: ServerResponse, status: number, body: unknown): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}
function sendText(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
const openaiError = (res: ServerResponse, status: number, message: string, param: string | null = null) =>
  send(res, status, { error: { message, type: 'invalid_request_error', param, code: null } });
const anthropicError = (res: ServerResponse, status: number, message: string) =>
  send(res, status, { type: 'error', error: { type: status === 404 ? 'not_found_error' : 'invalid_request_error', message } });

/** Cursor pages over a newest-first list: `after` (OpenAI) / `after_id` (Anthropic) is the last id of the previous page. */
function page<T extends { id: string }>(all: T[], q: URLSearchParams, afterKey: string): { data: T[]; has_more: boolean; first_id: string | null; last_id: string | null } {
  const limit = Math.max(1, Math.min(100, Number(q.get('limit') ?? 20)));
  let items = all;
  const after = q.get(afterKey);
  const before = q.get('before_id');
  if (after) items = items.slice(items.findIndex((b) => b.id === after) + 1);
  if (before) items = items.slice(0, Math.max(0, items.findIndex((b) => b.id === before)));
  const data = before ? items.slice(-limit) : items.slice(0, limit);
  return { data, has_more: items.length > data.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

export function createBatchApi(hooks: BatchHooks): FakeBatchApi {
  const files = new Map<string, FakeFile>();
  const batches: FakeBatch[] = [];
  let seq = 0;
  const faults = new Map<BatchRoute, { kind: 'drop' } | { kind: 'hold'; arrived: () => void; released: Promise<void> }>();
  const calls: Record<BatchRoute, number> = { upload: 0, create: 0, retrieve: 0, list: 0, cancel: 0, content: 0, results: 0 };
  const api: FakeBatchApi = {
    delayMs: 0, expireAfter: null, geminiResultsAsFile: false, batches, handle, calls,
    dropNext: (route) => void faults.set(route, { kind: 'drop' }),
    holdNext(route) {
      let arrived!: () => void;
      let release!: () => void;
      const a = new Promise<void>((r) => (arrived = r));
      const released = new Promise<void>((r) => (release = r));
      faults.set(route, { kind: 'hold', arrived, released });
      return { arrived: a, release };
    },
  };

  function routeOf(method: string | undefined, p: string): BatchRoute | null {
    if (p === '/v1/files' && method === 'POST') return 'upload';
    if (/^\/v1\/files\/[^/]+\/content$/.test(p) || /^\/v1\/messages\/batches\/[^/]+\/results$/.test(p)) return p.endsWith('/results') ? 'results' : 'content';
    if ((p === '/v1/batches' || p === '/v1/messages/batches') && method === 'POST') return 'create';
    if (p === '/v1/batches' || p === '/v1/messages/batches') return 'list';
    if (p.endsWith('/cancel')) return 'cancel';
    if (/^\/v1\/(messages\/)?batches\/[^/]+$/.test(p)) return 'retrieve';
    if (/^\/v1beta\/models\/[^/]+:batchGenerateContent$/.test(p)) return 'create';
    if (p === '/v1beta/batches') return 'list';
    if (/^\/v1beta\/batches\/[^/]+:cancel$/.test(p)) return 'cancel';
    if (/^\/v1beta\/batches\/[^/]+$/.test(p)) return 'retrieve';
    if (/^\/v1beta\/files\/[^/]+:download$/.test(p)) return 'content';
    return null;
  }

  /** Applies an armed fault to this response: its effect has happened; the answer is dropped or held back. */
  function faulty(req: IncomingMessage, res: ServerResponse, route: BatchRoute | null): ServerResponse {
    if (route) calls[route] += 1;
    const f = route ? faults.get(route) : undefined;
    if (!f || !route) return res;
    faults.delete(route);
    const end = res.end.bind(res);
    const writeHead = res.writeHead.bind(res);
    let head: Parameters<typeof res.writeHead> | null = null;
    (res as { writeHead: unknown }).writeHead = (...args: Parameters<typeof res.writeHead>) => ((head = args), res);
    (res as { end: unknown }).end = (...args: unknown[]) => {
      if (f.kind === 'drop') {
        req.socket.destroy();
      } else {
        f.arrived();
        void f.released.then(() => {
          if (req.socket.destroyed) return;
          if (head) writeHead(...head);
          (end as (...a: unknown[]) => void)(...args);
        });
      }
      return res;
    };
    return res;
  }

  function addFile(purpose: string, filename: string, bytes: Buffer): FakeFile {
    const f = { id: `file-${++seq}`, purpose, filename, bytes, created_at: secs(Date.now()) };
    files.set(f.id, f);
    return f;
  }
  const fileObject = (f: FakeFile) => ({ id: f.id, object: 'file', bytes: f.bytes.length, created_at: f.created_at, filename: f.filename, purpose: f.purpose, status: 'processed', expires_at: null, status_details: null });

  /** Ends a batch whose time has come: answers its requests (or expires / cancels them) exactly once. */
  function settle(b: FakeBatch): void {
    if (b.results || b.errors.length) return;
    const now = Date.now();
    if (b.cancelled_ms === null && now < b.ends_ms) return;
    const results: NonNullable<FakeBatch['results']> = new Map();
    b.requests.forEach((r, i) => {
      if (b.cancelled_ms !== null) return void results.set(r.custom_id, { kind: 'cancelled' });
      if (b.expire_after !== null && i >= b.expire_after) return void results.set(r.custom_id, { kind: 'expired' });
      if (b.provider === 'gemini' && b.expire_after !== null) return void results.set(r.custom_id, { kind: 'expired' });
      const path = b.provider === 'anthropic' ? '/v1/messages' : b.endpoint;
      const q = hooks.requestOf('POST', path, r.body)!;
      const a = hooks.answer(q.provider, q.endpoint, q.model, r.body, q.prompt, hooks.nextKind(q.prompt), { batch_id: b.id, custom_id: r.custom_id });
      results.set(r.custom_id, { kind: 'answered', answer: a });
    });
    b.results = results;
    if (b.provider !== 'openai') return;
    // OpenAI writes answered requests (HTTP 200) to the output file, everything else to the error file.
    const out: string[] = [];
    const err: string[] = [];
    let n = 0;
    for (const [custom_id, r] of results) {
      const id = `batch_req_${b.id}_${++n}`;
      if (r.kind === 'answered') {
        const line = JSON.stringify({ id, custom_id, response: { status_code: r.answer.status, request_id: `req_${b.id}_${n}`, body: r.answer.body }, error: null });
        (r.answer.status === 200 ? out : err).push(line);
      } else {
        const error = r.kind === 'expired'
          ? { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' }
          : { code: 'batch_cancelled', message: 'This request was cancelled before it was executed.' };
        err.push(JSON.stringify({ id, custom_id, response: null, error }));
      }
    }
    if (out.length) b.output_file_id = addFile('batch_output', `${b.id}_output.jsonl`, Buffer.from(out.join('\n') + '\n')).id;
    if (err.length) b.error_file_id = addFile('batch_output', `${b.id}_error.jsonl`, Buffer.from(err.join('\n') + '\n')).id;
  }

  function openaiStatus(b: FakeBatch): string {
    if (b.errors.length) return 'failed';
    if (!b.results) return b.cancelled_ms !== null ? 'cancelling' : 'in_progress';
    if (b.cancelled_ms !== null) return 'cancelled';
    return [...b.results.values()].some((r) => r.kind === 'expired') ? 'expired' : 'completed';
  }

  function openaiBatch(b: FakeBatch) {
    settle(b);
    const status = openaiStatus(b);
    const rs = [...(b.results?.values() ?? [])];
    const ok = rs.filter((r) => r.kind === 'answered' && r.answer.status === 200).length;
    const end = b.results ? secs(Math.max(b.ends_ms, b.created_ms)) : null;
    // Batch-level usage is the sum of the answered requests' usage (chat completions' field names differ).
    const usage = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 };
    for (const r of rs) {
      if (r.kind !== 'answered' || r.answer.status !== 200) continue;
      const u = (r.answer.body as { usage?: Record<string, any> }).usage ?? {};
      usage.input_tokens += u.prompt_tokens ?? u.input_tokens ?? 0;
      usage.output_tokens += u.completion_tokens ?? u.output_tokens ?? 0;
      usage.reasoning_tokens += u.completion_tokens_details?.reasoning_tokens ?? u.output_tokens_details?.reasoning_tokens ?? 0;
    }
    return {
      id: b.id, object: 'batch', endpoint: b.endpoint, model: b.requests[0]?.body?.model ?? null,
      errors: b.errors.length ? { object: 'list', data: b.errors } : null,
      input_file_id: b.input_file_id, completion_window: '24h', status,
      output_file_id: b.output_file_id, error_file_id: b.error_file_id,
      created_at: secs(b.created_ms), in_progress_at: b.errors.length ? null : secs(b.created_ms), expires_at: secs(b.created_ms + DAY_MS),
      finalizing_at: b.results && status === 'completed' ? end : null, completed_at: status === 'completed' ? end : null,
      failed_at: status === 'failed' ? secs(b.created_ms) : null, expired_at: status === 'expired' ? end : null,
      cancelling_at: b.cancelled_ms !== null ? secs(b.cancelled_ms) : null, cancelled_at: status === 'cancelled' ? secs(b.cancelled_ms!) : null,
      request_counts: { total: b.requests.length, completed: ok, failed: b.results ? b.requests.length - ok : 0 },
      usage: { input_tokens: usage.input_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.output_tokens, output_tokens_details: { reasoning_tokens: usage.reasoning_tokens }, total_tokens: usage.input_tokens + usage.output_tokens },
      metadata: b.metadata,
    };
  }

  function anthropicBatch(b: FakeBatch) {
    settle(b);
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (!b.results) counts.processing = b.requests.length;
    for (const r of b.results?.values() ?? []) {
      if (r.kind === 'answered') counts[r.answer.status === 200 ? 'succeeded' : 'errored'] += 1;
      else counts[r.kind === 'cancelled' ? 'canceled' : 'expired'] += 1;
    }
    const ended = b.results !== null;
    return {
      id: b.id, type: 'message_batch',
      processing_status: ended ? 'ended' : b.cancelled_ms !== null ? 'canceling' : 'in_progress',
      request_counts: counts,
      ended_at: ended ? iso(b.cancelled_ms ?? b.ends_ms) : null,
      created_at: iso(b.created_ms), expires_at: iso(b.created_ms + DAY_MS), archived_at: null,
      cancel_initiated_at: iso(b.cancelled_ms),
      results_url: ended ? `${hooks.url()}/v1/messages/batches/${b.id}/results` : null,
    };
  }

  function newBatch(provider: FakeBatch['provider'], id: string, endpoint: string, requests: FakeBatch['requests'], metadata: FakeBatch['metadata'], input_file_id: string | null): FakeBatch {
    const now = Date.now();
    const b: FakeBatch = {
      provider, id, created_ms: now, ends_ms: now + api.delayMs, endpoint, metadata, display_name: null, results_as_file: false, requests, input_file_id,
      expire_after: api.expireAfter, cancelled_ms: null, results: null, output_file_id: null, error_file_id: null, errors: [],
    };
    batches.push(b);
    return b;
  }

  function openai(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer): boolean {
    const p = url.pathname;
    const m = req.method;
    if (m === 'POST' && p === '/v1/files') {
      void (async () => {
        const form = await new Request('http://fake/v1/files', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(raw) }).formData();
        const file = form.get('file');
        const purpose = String(form.get('purpose') ?? '');
        if (!(file instanceof Blob)) return openaiError(res, 400, "'file' is a required property", 'file');
        if (!purpose) return openaiError(res, 400, "'purpose' is a required property", 'purpose');
        const f = addFile(purpose, (file as File).name ?? 'upload', Buffer.from(await file.arrayBuffer()));
        send(res, 200, fileObject(f));
      })().catch((e: Error) => openaiError(res, 500, `fake server: ${e.message}`));
      return true;
    }
    let g = /^\/v1\/files\/([^/]+)(\/content)?$/.exec(p);
    if (m === 'GET' && g) {
      const f = files.get(g[1]);
      if (!f) return openaiError(res, 404, `No such File object: ${g[1]}`, 'id'), true;
      if (g[2]) sendText(res, f.bytes.toString('utf8'));
      else send(res, 200, fileObject(f));
      return true;
    }
    if (m === 'POST' && p === '/v1/batches') {
      const body = JSON.parse(raw.toString('utf8') || '{}');
      const f = files.get(body.input_file_id);
      if (!f) return openaiError(res, 400, `No such File object: ${body.input_file_id}`, 'input_file_id'), true;
      if (f.purpose !== 'batch') return openaiError(res, 400, `File ${f.id} has purpose '${f.purpose}'; a batch input file needs purpose 'batch'`, 'input_file_id'), true;
      if (body.completion_window !== '24h') return openaiError(res, 400, `completion_window must be '24h'`, 'completion_window'), true;
      const meta = body.metadata ?? null;
      if (meta && (Object.keys(meta).length > 16 || Object.entries(meta).some(([k, v]) => k.length > 64 || typeof v !== 'string' || v.length > 512))) {
        return openaiError(res, 400, 'metadata: at most 16 pairs, keys up to 64 characters, string values up to 512', 'metadata'), true;
      }
      const lines = f.bytes.toString('utf8').split('\n').filter((l) => l.trim());
      const requests: FakeBatch['requests'] = [];
      const errors: FakeBatch['errors'] = [];
      const seen = new Set<string>();
      lines.forEach((l, i) => {
        let r: { custom_id?: string; method?: string; url?: string; body?: unknown };
        try {
          r = JSON.parse(l);
        } catch {
          return void errors.push({ code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.', line: i + 1, param: null });
        }
        if (!r.custom_id || seen.has(r.custom_id)) errors.push({ code: 'duplicate_custom_id', message: 'The custom_id for this request is a duplicate of another request.', line: i + 1, param: 'custom_id' });
        else if (r.url !== body.endpoint) errors.push({ code: 'mismatched_endpoint', message: `The url ${r.url} does not match the batch endpoint ${body.endpoint}.`, line: i + 1, param: 'url' });
        else if (r.method !== 'POST') errors.push({ code: 'invalid_method', message: 'Only POST is supported.', line: i + 1, param: 'method' });
        seen.add(r.custom_id ?? '');
        requests.push({ custom_id: r.custom_id ?? '', body: r.body });
      });
      const b = newBatch('openai', `batch_${++seq}`, body.endpoint, requests, meta, f.id);
      b.errors = errors;
      send(res, 200, openaiBatch(b));
      return true;
    }
    if (m === 'GET' && p === '/v1/batches') {
      const all = batches.filter((b) => b.provider === 'openai').reverse();
      const pg = page(all, url.searchParams, 'after');
      send(res, 200, { object: 'list', data: pg.data.map(openaiBatch), first_id: pg.first_id, last_id: pg.last_id, has_more: pg.has_more });
      return true;
    }
    g = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(p);
    if (g && ((m === 'GET' && !g[2]) || (m === 'POST' && g[2]))) {
      const b = batches.find((x) => x.provider === 'openai' && x.id === g![1]);
      if (!b) return openaiError(res, 404, `No batch found with id '${g[1]}'.`, 'batch_id'), true;
      if (g[2]) {
        settle(b);
        if (b.results || b.errors.length) return openaiError(res, 409, `Cannot cancel a batch with status '${openaiStatus(b)}'.`), true;
        b.cancelled_ms = Date.now();
      }
      send(res, 200, openaiBatch(b));
      return true;
    }
    return false;
  }

  function anthropic(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer): boolean {
    const p = url.pathname;
    const m = req.method;
    if (m === 'POST' && p === '/v1/messages/batches') {
      const body = JSON.parse(raw.toString('utf8') || '{}');
      const requests = (body.requests ?? []) as { custom_id: string; params: any }[];
      if (!requests.length) return anthropicError(res, 400, 'requests: at least one request is required'), true;
      const seen = new Set<string>();
      for (const [i, r] of requests.entries()) {
        if (!ANTHROPIC_CUSTOM_ID.test(r.custom_id ?? '')) return anthropicError(res, 400, `requests.${i}.custom_id: must match ^[a-zA-Z0-9_-]{1,64}$`), true;
        if (seen.has(r.custom_id)) return anthropicError(res, 400, `requests.${i}.custom_id: duplicate custom_id ${r.custom_id}`), true;
        seen.add(r.custom_id);
      }
      const b = newBatch('anthropic', `msgbatch_${String(++seq).padStart(6, '0')}`, '/v1/messages', requests.map((r) => ({ custom_id: r.custom_id, body: r.params })), null, null);
      send(res, 200, anthropicBatch(b));
      return true;
    }
    if (m === 'GET' && p === '/v1/messages/batches') {
      const all = batches.filter((b) => b.provider === 'anthropic').reverse();
      const pg = page(all, url.searchParams, 'after_id');
      send(res, 200, { data: pg.data.map(anthropicBatch), has_more: pg.has_more, first_id: pg.first_id, last_id: pg.last_id });
      return true;
    }
    const g = /^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/.exec(p);
    if (!g) return false;
    const b = batches.find((x) => x.provider === 'anthropic' && x.id === g[1]);
    if (!b) return anthropicError(res, 404, `message batch ${g[1]} not found`), true;
    if (m === 'GET' && !g[2]) send(res, 200, anthropicBatch(b));
    else if (m === 'POST' && g[2] === '/cancel') {
      settle(b);
      if (!b.results) b.cancelled_ms = Date.now();
      send(res, 200, anthropicBatch(b));
    } else if (m === 'GET' && g[2] === '/results') {
      settle(b);
      if (!b.results) return anthropicError(res, 400, `message batch ${b.id} is still processing`), true;
      const lines = [...b.results].map(([custom_id, r]) => {
        if (r.kind === 'cancelled') return { custom_id, result: { type: 'canceled' } };
        if (r.kind === 'expired') return { custom_id, result: { type: 'expired' } };
        if (r.kind !== 'answered') throw new Error('unreachable');
        if (r.answer.status === 200) return { custom_id, result: { type: 'succeeded', message: r.answer.body } };
        return { custom_id, result: { type: 'errored', error: r.answer.body } };
      });
      sendText(res, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    } else return false;
    return true;
  }

  const GEMINI_OP = 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch';
  const geminiError = (res: ServerResponse, status: number, message: string) =>
    send(res, status, { error: { code: status, message, status: status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT' } });

  /** `justCreated`: the create's own answer, which Gemini gives while the batch is still queued. */
  function geminiState(b: FakeBatch, justCreated = false): string {
    if (!b.results) return justCreated ? 'BATCH_STATE_PENDING' : 'BATCH_STATE_RUNNING';
    if (b.cancelled_ms !== null) return 'BATCH_STATE_CANCELLED';
    return [...b.results.values()].some((r) => r.kind === 'expired') ? 'BATCH_STATE_EXPIRED' : 'BATCH_STATE_SUCCEEDED';
  }

  /** A Gemini batch as its long-running Operation (what create, get and list answer). */
  function geminiOperation(b: FakeBatch, justCreated = false) {
    settle(b);
    const state = geminiState(b, justCreated);
    const answered = [...(b.results?.values() ?? [])].filter((r) => r.kind === 'answered') as { kind: 'answered'; answer: Answer }[];
    const ok = answered.filter((r) => r.answer.status === 200).length;
    const endMs = b.results ? (b.cancelled_ms ?? b.ends_ms) : null;
    // Results in input order, inline or in a responses file; a request that did not run (expired, cancelled) has none.
    const responses = b.results && state === 'BATCH_STATE_SUCCEEDED'
      ? b.requests.map((q) => {
        const r = b.results!.get(q.custom_id)!;
        if (r.kind !== 'answered') return { metadata: q.request_metadata };
        return r.answer.status === 200 ? { response: r.answer.body, metadata: q.request_metadata } : { error: (r.answer.body as { error: unknown }).error, metadata: q.request_metadata };
      })
      : null;
    if (responses && b.results_as_file && !b.output_file_id) {
      const lines = responses.map(({ metadata: m, ...r }) => JSON.stringify({ key: m?.key, ...r }));
      b.output_file_id = addFile('batch_output', `${b.id}-responses.jsonl`, Buffer.from(lines.join('\n') + '\n')).id;
    }
    const output = responses ? (b.results_as_file ? { responsesFile: `files/${b.output_file_id}` } : { inlinedResponses: { inlinedResponses: responses } }) : undefined;
    const metadata = {
      '@type': GEMINI_OP, model: `models/${b.endpoint.split('/')[3].split(':')[0]}`, displayName: b.display_name, name: b.id,
      createTime: iso(b.created_ms), updateTime: iso(endMs ?? b.created_ms), ...(endMs !== null ? { endTime: iso(endMs) } : {}),
      batchStats: { requestCount: String(b.requests.length), successfulRequestCount: String(ok), failedRequestCount: String(answered.length - ok), pendingRequestCount: String(b.results ? 0 : b.requests.length) },
      state, ...(output ? { output } : {}),
    };
    return { name: b.id, metadata, done: b.results !== null, ...(output ? { response: { '@type': `${GEMINI_OP}Output`, ...output } } : {}) };
  }

  function gemini(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer): boolean {
    const p = url.pathname;
    const m = req.method;
    let g = /^\/v1beta\/models\/([^/]+):batchGenerateContent$/.exec(p);
    if (m === 'POST' && g) {
      const batch = (JSON.parse(raw.toString('utf8') || '{}') as { batch?: any }).batch ?? {};
      if (!batch.displayName) return geminiError(res, 400, 'batch.display_name is required'), true;
      if (batch.inputConfig?.fileName) return geminiError(res, 400, 'fake server: only inlined requests are implemented (input_config.file_name given)'), true;
      const inlined = (batch.inputConfig?.requests?.requests ?? []) as { request?: any; metadata?: Record<string, string> }[];
      if (!inlined.length) return geminiError(res, 400, 'batch.input_config.requests: at least one request is required'), true;
      for (const [i, r] of inlined.entries()) if (!r.request?.contents?.length) return geminiError(res, 400, `batch.input_config.requests.requests[${i}].request.contents is required`), true;
      const requests = inlined.map((r, i) => ({ custom_id: r.metadata?.key ?? String(i), body: r.request, request_metadata: r.metadata }));
      const b = newBatch('gemini', `batches/fake${String(++seq).padStart(6, '0')}`, `/v1beta/models/${g[1]}:generateContent`, requests, null, null);
      b.display_name = batch.displayName;
      b.results_as_file = api.geminiResultsAsFile;
      send(res, 200, geminiOperation(b, true));
      return true;
    }
    if (m === 'GET' && p === '/v1beta/batches') {
      const all = batches.filter((b) => b.provider === 'gemini');
      const size = Math.max(1, Math.min(1000, Number(url.searchParams.get('pageSize') ?? 50)));
      const from = Number(url.searchParams.get('pageToken') ?? 0);
      const data = all.slice(from, from + size);
      send(res, 200, { operations: data.map((b) => geminiOperation(b)), ...(from + size < all.length ? { nextPageToken: String(from + size) } : {}) });
      return true;
    }
    g = /^\/v1beta\/files\/([^/:]+):download$/.exec(p);
    if (m === 'GET' && g) {
      const f = files.get(g[1]);
      if (!f || url.searchParams.get('alt') !== 'media') return geminiError(res, 404, `File files/${g[1]} not found.`), true;
      sendText(res, f.bytes.toString('utf8'));
      return true;
    }
    g = /^\/v1beta\/(batches\/[^/:]+)(:cancel)?$/.exec(p);
    if (!g || !((m === 'GET' && !g[2]) || (m === 'POST' && g[2]))) return false;
    const b = batches.find((x) => x.provider === 'gemini' && x.id === g![1]);
    if (!b) return geminiError(res, 404, `Batch ${g[1]} not found.`), true;
    if (g[2]) {
      settle(b);
      if (b.results) return geminiError(res, 400, `Batch ${b.id} has already ended (${geminiState(b)}).`), true;
      b.cancelled_ms = Date.now();
      settle(b);
      send(res, 200, {});
    } else send(res, 200, geminiOperation(b));
    return true;
  }

  function handle(req: IncomingMessage, resIn: ServerResponse, url: URL, raw: Buffer): boolean {
    const isGemini = url.pathname.startsWith('/v1beta/batches') || /^\/v1beta\/files\/[^/]+:download$/.test(url.pathname) || /^\/v1beta\/models\/[^/]+:batchGenerateContent$/.test(url.pathname);
    const isBatch = isGemini || url.pathname.startsWith('/v1/messages/batches') || url.pathname.startsWith('/v1/files') || url.pathname.startsWith('/v1/batches');
    const res = isBatch ? faulty(req, resIn, routeOf(req.method, url.pathname)) : resIn;
    if (isGemini) return gemini(req, res, url, raw);
    if (url.pathname.startsWith('/v1/messages/batches')) return anthropic(req, res, url, raw);
    if (url.pathname.startsWith('/v1/files') || url.pathname.startsWith('/v1/batches')) return openai(req, res, url, raw);
    return false;
  }
  return api;
}
