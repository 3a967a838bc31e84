/**
 * The two request formats the local embedding server accepts, parsed into one shape (pure: no I/O), and the
 * answers it writes. A bad request is a `RequestError` with the HTTP status and the OpenAI-style error body the
 * official SDKs read (`error.message`, `error.type`, `error.param`).
 *
 *   OpenAI  POST /v1/embeddings  {model, input: string | string[], encoding_format?: "float"|"base64", dimensions?}
 *           -> {object: "list", data: [{object: "embedding", index, embedding}], model, usage: {prompt_tokens, total_tokens}}
 *   TEI     POST /embed          {inputs: string | string[], normalize?: boolean, truncate?: boolean}
 *           -> [[...], ...]   (text-embeddings-inference's route; the server's default model)
 */

/** OpenAI's own cap on inputs per request; larger requests are refused, as OpenAI does. */
export const MAX_INPUTS = 2048;

export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly type: string = 'invalid_request_error',
  ) {
    super(message);
  }
  body() {
    return { error: { message: this.message, type: this.type, param: this.param, code: null } };
  }
}

export interface OpenAiRequest {
  model: string;
  texts: string[];
  base64: boolean;
  /** `dimensions` as asked (null: the model's own); the server refuses any other length than the model's. */
  dimensions: number | null;
}

export interface TeiRequest {
  texts: string[];
  normalize: boolean;
}

/** `status`: what the API being answered uses for a malformed body (OpenAI 400, text-embeddings-inference 422). */
function textsOf(input: unknown, param: string, status = 400): string[] {
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts)) throw new RequestError(status, `'${param}' must be a string or an array of strings`, param);
  if (texts.length === 0) throw new RequestError(status, `'${param}' must not be empty`, param);
  if (texts.length > MAX_INPUTS) throw new RequestError(status, `'${param}' has ${texts.length} items; at most ${MAX_INPUTS} per request`, param);
  texts.forEach((t, i) => {
    // Token-id arrays are valid OpenAI input, but ids are tokenizer-specific: this server embeds text only.
    if (typeof t !== 'string') throw new RequestError(status, `'${param}[${i}]' must be a string (token-id input is not supported)`, param);
  });
  return texts as string[];
}

export function parseOpenAiRequest(body: unknown): OpenAiRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError(400, 'body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || !b.model) throw new RequestError(400, "'model' must be a non-empty string", 'model');
  const fmt = b.encoding_format ?? 'float';
  if (fmt !== 'float' && fmt !== 'base64') throw new RequestError(400, `'encoding_format' must be "float" or "base64", got ${JSON.stringify(fmt)}`, 'encoding_format');
  const dims = b.dimensions ?? null;
  if (dims !== null && !(Number.isInteger(dims) && (dims as number) > 0)) throw new RequestError(400, "'dimensions' must be a positive integer", 'dimensions');
  return { model: b.model, texts: textsOf(b.input, 'input'), base64: fmt === 'base64', dimensions: dims as number | null };
}

export function parseTeiRequest(body: unknown): TeiRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError(422, 'body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b.normalize !== undefined && typeof b.normalize !== 'boolean') throw new RequestError(422, "'normalize' must be a boolean", 'normalize');
  return { texts: textsOf(b.inputs, 'inputs'), normalize: b.normalize ?? true };
}

export interface TeiRerankRequest {
  query: string;
  texts: string[];
}

/** text-embeddings-inference's POST /rerank body: {query, texts, raw_scores?, truncate?, return_text?}. */
export function parseTeiRerankRequest(body: unknown): TeiRerankRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError(422, 'body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.query !== 'string' || !b.query) throw new RequestError(422, "'query' must be a non-empty string", 'query');
  return { query: b.query, texts: textsOf(b.texts, 'texts', 422) };
}

/** A vector as OpenAI's base64 form: the float32 values' little-endian bytes (what the SDKs decode). */
export function vectorBase64(v: Float32Array): string {
  const le = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) le.writeFloatLE(v[i], i * 4);
  return le.toString('base64');
}

export function openAiResponse(model: string, vectors: readonly Float32Array[], tokens: number, base64: boolean) {
  return {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: base64 ? vectorBase64(v) : Array.from(v) })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
