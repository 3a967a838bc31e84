/**
 * A local fake of three LLM HTTP APIs, so the real SDKs can be pointed at it by base URL:
 *   OpenAI    POST /v1/chat/completions, POST /v1/responses        (SDK baseURL = <url>/v1)
 *   Anthropic POST /v1/messages                                      (SDK baseURL = <url>)
 *   Gemini    POST /v1beta/models/<model>:generateContent            (SDK httpOptions.baseUrl = <url>)
 *
 * Responses are scripted per function name (read from the prompt's "Function name: X" line) as a queue of kinds:
 *   good       a real benchmark entry (canonical, 8 asserts, 4 single-edit distractors) that passes the gate
 *   malformed  truncated JSON
 *   gate_fail  valid JSON, but one "distractor" is an equivalent rewrite that passes every test (gate stage 4)
 *   max_usage  a good entry billed as the most the request allows: every UTF-8 byte of the prompt's texts a token,
 *              plus 4 per message, and the whole output cap the request body states (see `maxBilling`)
 *   429 / 500 / 400   an HTTP error with the provider's error body
 * Unscripted requests get `good`. An outage window (`outage(ms, status)`) answers every request that arrives in
 * it with that status (a 429 with Retry-After: 1), scripted or not, as a provider-wide 429 storm or 5xx outage
 * does; the scripts resume after it. Registry prompts ("Propose N distinct functions in the domain D") get N
 * distinct triples for D. Every request is logged with the usage it reported, so tests can compute the
 * expected audit totals independently of the code under test. The providers' batch APIs (OpenAI's files and
 * batches, Anthropic's Message Batches, Gemini's batch mode) are in batch-api.ts: a batch answers each of its requests through the same
 * scripts, logged with its batch_id and custom_id.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBatchApi, type FakeBatchApi } from './batch-api.ts';

export type ScriptKind = 'good' | 'malformed' | 'gate_fail' | 'max_usage' | '429' | '500' | '503' | '400';

export interface LoggedRequest {
  provider: 'openai' | 'anthropic' | 'gemini';
  endpoint: string;
  model: string;
  /** Entry function name, or `registry:<domain>`, or null when the prompt matched neither. */
  subject: string | null;
  kind: ScriptKind;
  status: number;
  /** The prompt text the server saw (system + user), for asserting what a regeneration was told. */
  prompt: string;
  /** Billed usage as this provider defines it: output includes reasoning. Null for HTTP errors. */
  usage: { input_tokens: number; output_tokens: number; reasoning_tokens: number } | null;
  /** Set when the request was answered inside a provider batch (see batch-api.ts): billed at batch prices. */
  batch_id?: string;
  custom_id?: string;
}

export interface FakeLlmServer {
  url: string;
  /** Environment for the SDKs (base URLs and dummy keys). */
  env: Record<string, string>;
  log: LoggedRequest[];
  script(subject: string, kinds: ScriptKind[]): void;
  /** Delay before every answer (lets a test kill a worker while calls are in flight). */
  delayMs: number;
  /** Requests received and not yet answered. */
  readonly inflight: number;
  /**
   * For `ms` from the next request on, every request is answered with `status` (429: with Retry-After: 1). The
   * window opens at that request, not at the call: on a loaded machine a workflow's first call can come seconds
   * after the test armed the outage, and a window opened early would have closed unseen.
   */
  outage(ms: number, status?: 429 | 500 | 503): void;
  /** When the outage window closes (ms since the epoch); 0 while armed and not yet opened, or with none. */
  readonly outageEndsAt: number;
  /** The providers' batch APIs (OpenAI Batch API, Anthropic Message Batches, Gemini batch mode): delay, expiry, the batches made. */
  batch: FakeBatchApi;
  close(): Promise<void>;
}

/** Fixed "reasoning" tokens per answer for providers that report them separately (OpenAI, Gemini). */
export const FAKE_REASONING_TOKENS = 37;
export const fakeTokens = (chars: number) => Math.ceil(chars / 4);

/**
 * A correct entry for `name` and four single-edit distractors; K (1..7) makes each entry's expected values its own.
 * Every distractor fails with a wrong value (a bare assertion failure), never by crashing. Failing test indices,
 * worked by hand: off_by_one_boundary {0,1,5,6,7}; off_by_one {0,1,2,5,6,7}; wrong_comparison {3};
 * wrong_operator {0,1,5,6,7} (so the four do not all fail the same subset).
 */
export function goodEntry(name: string) {
  const K = (name.length % 7) + 1;
  const canonical = (edge: string, init: string, op: string, stop: string) =>
    [
      `def ${name}(xs, n):`,
      `    ${edge}`,
      `        return 0`,
      `    total = ${init}`,
      `    for i in range(${stop}):`,
      `        total ${op} xs[i]`,
      `    return total + ${K}`,
      ``,
    ].join('\n');
  const code = canonical('if n <= 0:', '0', '+=', 'min(n, len(xs))');
  const tests = [
    `assert ${name}([1, 2, 3], 2) == ${3 + K}`,
    `assert ${name}([1, 2, 3], 5) == ${6 + K}`,
    `assert ${name}([], 3) == ${K}`,
    `assert ${name}([4], 0) == 0`,
    `assert ${name}([4, 5], -1) == 0`,
    `assert ${name}([10, 20, 30], 3) == ${60 + K}`,
    `assert ${name}([7], 1) == ${7 + K}`,
    `assert ${name}([1, 1, 1, 1], 2) == ${2 + K}`,
  ];
  const distractors = [
    { code: canonical('if n <= 0:', '0', '+=', 'min(n, len(xs)) - 1'), bug_type: 'off_by_one_boundary', bug_description: 'The loop stops one element early, dropping the last item of the window.' },
    { code: canonical('if n <= 0:', '1', '+=', 'min(n, len(xs))'), bug_type: 'off_by_one', bug_description: 'The running total starts at 1 instead of 0, so every non-empty-window result is one too large.' },
    { code: canonical('if n < 0:', '0', '+=', 'min(n, len(xs))'), bug_type: 'wrong_comparison', bug_description: 'n == 0 no longer returns 0 and falls through to adding the offset.' },
    { code: canonical('if n <= 0:', '0', '-=', 'min(n, len(xs))'), bug_type: 'wrong_operator', bug_description: 'Items are subtracted from the total instead of added.' },
  ];
  return { canonical: code, tests, distractors };
}

/** Like `goodEntry`, but distractor 4 is an equivalent rewrite (`total = total + xs[i]`): it passes every test. */
export function gateFailingEntry(name: string) {
  const e = goodEntry(name);
  e.distractors[3] = {
    code: e.canonical.replace('total += xs[i]', 'total = total + xs[i]'),
    bug_type: 'wrong_operator',
    bug_description: 'Uses an explicit addition instead of +=.',
  };
  return e;
}

const WORDS = 'amber basalt cobalt dune ember fjord granite harbor indigo juniper kelp lagoon meadow nectar obsidian prairie quartz raven sierra tundra umber valley willow xenon yarrow zephyr'.split(' ');

function registryAnswer(domain: string, count: number): string {
  const entries = Array.from({ length: count }, (_, j) => {
    const w = [WORDS[(3 * j) % WORDS.length], WORDS[(3 * j + 1) % WORDS.length], WORDS[(3 * j + 2) % WORDS.length]];
    return { function_name: `${domain}_${w[0]}_${j}`, query: `Compute the ${w.join(' ')} ${domain} window total number ${j}.`, domain };
  });
  return JSON.stringify({ entries });
}

function subjectOf(prompt: string): string | null {
  const f = /Function name: ([A-Za-z_][A-Za-z0-9_]*)/.exec(prompt);
  if (f) return f[1];
  const r = /in the domain "([^"]+)"/.exec(prompt);
  return r ? `registry:${r[1]}` : null;
}

function answerText(subject: string | null, prompt: string, kind: ScriptKind): string {
  if (subject?.startsWith('registry:')) {
    const count = Number(/Propose (\d+) distinct/.exec(prompt)?.[1] ?? 3);
    return kind === 'malformed' ? '{"entries": [' : registryAnswer(subject.slice('registry:'.length), count);
  }
  const name = subject ?? 'unknown_function';
  // Cut short and closed: an object that JSON.parse rejects (as a truncated answer is).
  if (kind === 'malformed') return JSON.stringify(goodEntry(name)).slice(0, 120) + '}';
  if (kind === 'gate_fail') return JSON.stringify(gateFailingEntry(name));
  // Wrapped in a fence with a sentence around it, as models often answer: the parser must cope.
  return 'Here is the entry:\n```json\n' + JSON.stringify(goodEntry(name), null, 1) + '\n```\n';
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Which provider and endpoint a real-time route is, with the model and the prompt text it carries. */
export function requestOf(method: string, pathname: string, body: any): { provider: LoggedRequest['provider']; endpoint: string; model: string; prompt: string } | null {
  if (method !== 'POST') return null;
  if (pathname === '/v1/chat/completions') {
    return { provider: 'openai', endpoint: 'chat.completions', model: body.model, prompt: (body.messages as { content: string }[]).map((m) => m.content).join('\n') };
  }
  if (pathname === '/v1/responses') {
    return { provider: 'openai', endpoint: 'responses', model: body.model, prompt: `${body.instructions ?? ''}\n${typeof body.input === 'string' ? body.input : JSON.stringify(body.input)}` };
  }
  if (pathname === '/v1/messages') {
    const content = (m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
    return { provider: 'anthropic', endpoint: 'messages', model: body.model, prompt: `${typeof body.system === 'string' ? body.system : JSON.stringify(body.system)}\n${(body.messages as { content: unknown }[]).map(content).join('\n')}` };
  }
  if (/^\/v1beta\/models\/[^/:]+:generateContent$/.test(pathname)) {
    const prompt = (JSON.stringify(body.systemInstruction ?? '') + '\n' + JSON.stringify(body.contents)).replace(/\\n/g, '\n').replace(/\\"/g, '"');
    return { provider: 'gemini', endpoint: 'generateContent', model: pathname.split('/')[3].split(':')[0], prompt };
  }
  return null;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
  res.end(data);
}

const ERROR_BODIES = {
  openai: (s: number, m: string) => ({ error: { message: m, type: s === 429 ? 'rate_limit_exceeded' : 'server_error', code: null, param: null } }),
  anthropic: (s: number, m: string) => ({ type: 'error', error: { type: s === 429 ? 'rate_limit_error' : s >= 500 ? 'api_error' : 'invalid_request_error', message: m } }),
  gemini: (s: number, m: string) => ({ error: { code: s, message: m, status: s === 429 ? 'RESOURCE_EXHAUSTED' : s >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT' } }),
};

/**
 * The most a provider could bill for this request body: input = UTF-8 bytes of every prompt text + 4 framing tokens
 * per message; output = the cap the request states (OpenAI chat `max_completion_tokens`, responses
 * `max_output_tokens`, Anthropic `max_tokens`, which holds the thinking budget, Gemini `maxOutputTokens` with the
 * thinking budget billed on top). A request without a cap could be billed without limit: 10^9 output tokens.
 */
export function maxBilling(endpoint: string, body: any): { input_tokens: number; output_tokens: number; reasoning_tokens: number } {
  const bytes = (t: unknown) => Buffer.byteLength(typeof t === 'string' ? t : JSON.stringify(t ?? ''), 'utf8');
  const parts = (c: any): string[] => (c?.parts ?? []).map((p: { text?: string }) => p.text ?? '');
  let texts: string[];
  let output: number | undefined;
  let reasoning = 0;
  if (endpoint === 'chat.completions') {
    texts = (body.messages as { content: string }[]).map((m) => m.content);
    output = body.max_completion_tokens ?? body.max_tokens;
  } else if (endpoint === 'responses') {
    texts = [body.instructions ?? '', typeof body.input === 'string' ? body.input : JSON.stringify(body.input)];
    output = body.max_output_tokens;
  } else if (endpoint === 'messages') {
    texts = [typeof body.system === 'string' ? body.system : JSON.stringify(body.system ?? ''), ...(body.messages as { content: unknown }[]).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))];
    output = body.max_tokens;
    reasoning = body.thinking?.budget_tokens ?? 0;
  } else {
    texts = [...parts(body.systemInstruction), ...(body.contents ?? []).flatMap(parts)];
    const g = body.generationConfig ?? {};
    reasoning = g.thinkingConfig?.thinkingBudget ?? 0;
    output = g.maxOutputTokens === undefined ? undefined : g.maxOutputTokens + reasoning;
  }
  const input_tokens = texts.reduce((a, t) => a + bytes(t) + 4, 0);
  return { input_tokens, output_tokens: output ?? 1e9, reasoning_tokens: reasoning };
}

export async function startFakeLlmServer(): Promise<FakeLlmServer> {
  const scripts = new Map<string, ScriptKind[]>();
  const log: LoggedRequest[] = [];
  const state = { delayMs: 0, inflight: 0, outageUntil: 0, outageStatus: 429, outageArmedMs: 0 };

  /** The next scripted kind for this prompt (an open outage window overrides the script). */
  function nextKind(prompt: string): ScriptKind {
    const subject = subjectOf(prompt);
    const queue = subject ? scripts.get(subject) : undefined;
    if (state.outageArmedMs) {
      state.outageUntil = Date.now() + state.outageArmedMs;
      state.outageArmedMs = 0;
    }
    const inOutage = Date.now() < state.outageUntil;
    return inOutage ? (String(state.outageStatus) as ScriptKind) : (queue?.shift() ?? 'good');
  }

  /**
   * One request's answer, logged with its billed usage: the real-time routes send it, the batch routes put it
   * into an output or error file (`batch` names the batch and the request's custom_id there).
   */
  function answer(
    provider: LoggedRequest['provider'], endpoint: string, model: string, body: any, prompt: string, kind: ScriptKind,
    batch: { batch_id: string; custom_id: string } | null,
  ): { status: number; body: unknown; headers: Record<string, string> } {
    const subject = subjectOf(prompt);
    const at = batch ?? {};
    if (kind === '429' || kind === '500' || kind === '503' || kind === '400') {
      const status = Number(kind);
      log.push({ provider, endpoint, model, subject, kind, status, usage: null, prompt, ...at });
      // A 429 says when to come back, as the providers do.
      return { status, body: ERROR_BODIES[provider](status, `fake ${kind} for ${subject}`), headers: status === 429 ? { 'retry-after': '1' } : {} };
    }
    const text = answerText(subject, prompt, kind === 'max_usage' ? 'good' : kind);
    const max = kind === 'max_usage' ? maxBilling(endpoint, body) : null;
    const input = max ? max.input_tokens : fakeTokens(prompt.length);
    // Anthropic reports thinking inside output_tokens; the others report reasoning apart from the visible part.
    const reasoning = max ? (provider === 'anthropic' ? 0 : max.reasoning_tokens) : provider === 'anthropic' ? 0 : FAKE_REASONING_TOKENS;
    const visible = max ? max.output_tokens - reasoning : fakeTokens(text.length);
    const usage = { input_tokens: input, output_tokens: visible + reasoning, reasoning_tokens: reasoning };
    log.push({ provider, endpoint, model, subject, kind, status: 200, usage, prompt, ...at });
    const n = log.length;
    if (endpoint === 'chat.completions') {
      return { status: 200, headers: {}, body: {
        id: `chatcmpl-${n}`, object: 'chat.completion', created: 1_700_000_000, model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: input, completion_tokens: visible + reasoning, total_tokens: input + visible + reasoning, completion_tokens_details: { reasoning_tokens: reasoning } },
      } };
    }
    if (endpoint === 'responses') {
      return { status: 200, headers: {}, body: {
        id: `resp_${n}`, object: 'response', created_at: 1_700_000_000, model, status: 'completed',
        output: [{ type: 'message', id: `msg_${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
        usage: { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: visible + reasoning, output_tokens_details: { reasoning_tokens: reasoning }, total_tokens: input + visible + reasoning },
      } };
    }
    if (endpoint === 'messages') {
      return { status: 200, headers: {}, body: {
        id: `msg_${n}`, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }],
        stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: input, output_tokens: visible },
      } };
    }
    return { status: 200, headers: {}, body: {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      // Gemini counts thoughts apart from candidates; both are billed.
      usageMetadata: { promptTokenCount: input, candidatesTokenCount: visible, thoughtsTokenCount: reasoning, totalTokenCount: input + visible + reasoning },
      modelVersion: model,
    } };
  }

  let baseUrl = '';
  const batches = createBatchApi({ url: () => baseUrl, requestOf, nextKind, answer });

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      const raw = await readRaw(req);
      if (batches.handle(req, res, url, raw)) return;
      const body = JSON.parse(raw.toString('utf8') || '{}');
      const r = requestOf(req.method ?? 'GET', url.pathname, body);
      if (!r) {
        send(res, 404, { error: { message: `fake server: no route ${req.method} ${url.pathname}` } });
        return;
      }
      const { provider, endpoint, model, prompt } = r;
      const kind = nextKind(prompt);
      state.inflight += 1;
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      state.inflight -= 1;
      const a = answer(provider, endpoint, model, body, prompt, kind, null);
      send(res, a.status, a.body, a.headers);
    } catch (err) {
      send(res, 500, { error: { message: `fake server crashed: ${(err as Error).message}` } });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  baseUrl = url;
  return {
    url,
    env: {
      OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: `${url}/v1`,
      ANTHROPIC_API_KEY: 'sk-ant-fake', ANTHROPIC_BASE_URL: url,
      GEMINI_API_KEY: 'fake-gemini-key', GEMINI_BASE_URL: url,
    },
    log,
    batch: batches,
    outage: (ms, status = 429) => {
      state.outageArmedMs = ms;
      state.outageUntil = 0;
      state.outageStatus = status;
    },
    get outageEndsAt() {
      return state.outageUntil;
    },
    script: (subject, kinds) => scripts.set(subject, [...(scripts.get(subject) ?? []), ...kinds]),
    get inflight() {
      return state.inflight;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
