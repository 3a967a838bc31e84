/**
 * The three worked examples of the code-retrieval evaluation guide, as small repositories. Text is written
 * so the naive configuration fails the way the guide describes (not tuned to any score value: the tests
 * assert pass/fail and the diagnosis, and print ranks).
 */

/** 1. A deprecated createSession in src/legacy/ outranks the current one. */
export const SESSION_FILES: Record<string, string> = {
  'src/legacy/session.ts': `/**
 * createSession (legacy). How createSession handles an expired refresh token: when the refresh token is
 * expired, createSession refreshes the token inline, retries the refresh token exchange, and only then
 * creates the session. This explanatory note describes the expired refresh token flow of createSession
 * in detail: the expired token is refreshed, the refresh token is rotated, the session is created.
 * @deprecated since 2.0 — migration shim, no longer called.
 */
export function createSession(userId: string, refreshToken: string) {
  if (isExpired(refreshToken)) {
    refreshToken = refreshInline(refreshToken);
  }
  return { userId, token: refreshToken };
}
`,
  'src/auth/session-service.ts': `import { validateRefreshToken } from './validate';

/** Creates a session for a user; expiry checks are delegated to validateRefreshToken. */
export async function createSession(userId: string, refreshToken: string) {
  validateRefreshToken(refreshToken);
  return { userId, token: await issueAccessToken(userId) };
}
`,
  'src/auth/validate.ts': `export class ExpiredRefreshTokenError extends Error {}

/** Rejects an expired refresh token before any session is created. */
export function validateRefreshToken(refreshToken: string) {
  if (decode(refreshToken).expiresAt < Date.now()) throw new ExpiredRefreshTokenError('refresh token expired');
}
`,
  'src/auth/tokens.ts': `export function issueAccessToken(userId: string) {
  return sign({ sub: userId });
}
`,
  'src/users/profile.ts': `export function loadProfile(userId: string) {
  return db.users.find(userId);
}
`,
};

/** 2. An overloaded `parse` resolved by package context. */
export const PARSE_FILES: Record<string, string> = {
  'src/dates/parse.ts': `/** Parse an ISO date; validate the format and the calendar date. */
export function parse(input: string): Date {
  if (!ISO.test(input)) throw new Error('invalid date');
  return new Date(input);
}
`,
  'src/cli/parse.ts': `/** Parse command-line arguments and validate required flags. */
export function parse(argv: string[]) {
  return validateFlags(toFlags(argv));
}
`,
  'src/fixtures/parse.ts': `/**
 * Parse JSON fixtures. Where does parse validate? parse validates every fixture: it checks the schema,
 * validates signatures of recorded payloads, and validates that each fixture signature matches its file,
 * so validation failures in fixtures surface early. Signatures are validated before parse returns.
 */
export function parse(json: string) {
  const fixture = JSON.parse(json);
  validateSchema(fixture);
  return fixture;
}
`,
  'src/webhooks/parse.ts': `import { timingSafeEqual } from 'node:crypto';

export function parse(body: string, header: string, secret: string) {
  const expected = hmac(secret, body);
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(header))) throw new Error('bad signature');
  return JSON.parse(body);
}
`,
  'src/webhooks/handler.ts': `import { parse } from './parse';

export function handle(req: Request) {
  return dispatch(parse(req.body, req.headers['x-signature'], SECRET));
}
`,
};

/** 3. RetryPolicy usages crowd the definition out of a cutoff of 5. */
function retryTest(name: string): string {
  return `import { test } from 'node:test';
import { RetryPolicy } from '../src/retry';

test('${name} with a RetryPolicy', () => {
  const policy = new RetryPolicy({ maxAttempts: 3, backoffMs: 10 });
  const other = new RetryPolicy({ maxAttempts: 1, backoffMs: 0 });
  const none = new RetryPolicy({ maxAttempts: 0, backoffMs: 0 });
  assert(policy.shouldRetry(1) && !other.shouldRetry(1) && !none.shouldRetry(1));
});
`;
}
export const RETRY_FILES: Record<string, string> = {
  'src/retry.ts': `export interface RetryOptions {
  maxAttempts: number;
  backoffMs: number;
  maxDelayMs?: number;
  classify?: (error: unknown) => boolean;
}

/**
 * Decides whether to try a failed call again and how long to wait first. Attempts are counted from 1;
 * the delay doubles on every attempt up to maxDelayMs. Errors that classify rejects
 * fail at once. Instances are immutable and safe to share between clients.
 */
export class RetryPolicy {
  constructor(private readonly options: RetryOptions) {
    if (options.maxAttempts < 0) throw new RangeError('maxAttempts must be >= 0');
  }
  shouldRetry(attempt: number, error?: unknown): boolean {
    if (error !== undefined && this.options.classify && !this.options.classify(error)) return false;
    return attempt < this.options.maxAttempts;
  }
  delayMs(attempt: number): number {
    const raw = this.options.backoffMs * 2 ** (attempt - 1);
    return Math.min(raw, this.options.maxDelayMs ?? Number.POSITIVE_INFINITY);
  }
  withAttempts(maxAttempts: number) {
    return new RetryPolicy({ ...this.options, maxAttempts });
  }
}
`,
  'test/retry-basic.test.ts': retryTest('retries'),
  'test/retry-backoff.test.ts': retryTest('backs off'),
  'test/retry-limit.test.ts': retryTest('stops at the limit'),
  'test/retry-zero.test.ts': retryTest('never retries at zero'),
  'test/retry-jitter.test.ts': retryTest('adds no jitter'),
  'src/client.ts': `import { RetryPolicy } from './retry';

export function makeClient() {
  return new Client(new RetryPolicy({ maxAttempts: 5, backoffMs: 100 }));
}
`,
};

/** The gold case the CLI and gate tests start from: SESSION_FILES' createSession, legacy forbidden, at `rev`. */
export function sessionExpiryCase(rev: string) {
  return {
    id: 'session-expiry',
    query: 'How does createSession handle an expired refresh token?',
    repositoryRevision: rev,
    evidence: [{ id: 'service', anyOf: [{ file: 'src/auth/session-service.ts', symbol: 'createSession', roles: ['definition'] }] }],
    forbiddenPathPrefixes: ['src/legacy/'],
    cutoff: 5,
    queryClass: 'behaviour_description',
    rationale: 'current implementation; legacy is a shim',
  };
}
