import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRetry } from '../../activities/embeddings/retry.ts';

const http500 = () => Object.assign(new Error('internal error'), { status: 500 });

test('withRetry: an abort during a backoff wait ends it at once with the signal\'s reason, and no attempt follows', async () => {
  const ac = new AbortController();
  let attempts = 0;
  const reason = new Error('cancelled: the configuration failed');
  const t0 = Date.now();
  const p = withRetry(async () => {
    attempts++;
    // Abort while the first (one-hour) backoff is being waited out.
    setImmediate(() => ac.abort(reason));
    throw http500();
  }, { maxAttempts: 10, baseDelayMs: 3_600_000, maxDelayMs: 3_600_000, maxRetryAfterMs: 0, random: () => 1 }, undefined, ac.signal);
  await assert.rejects(p, (e) => e === reason);
  assert.equal(attempts, 1);
  assert.ok(Date.now() - t0 < 60_000, 'the hour-long wait was cut short');
});

test('withRetry: an already aborted signal makes no attempt', async () => {
  const ac = new AbortController();
  ac.abort(new Error('gone'));
  let attempts = 0;
  await assert.rejects(withRetry(async () => ++attempts, undefined, undefined, ac.signal), /gone/);
  assert.equal(attempts, 0);
});

test('withRetry: an attempt the signal itself ends (a deadline mid-request) is not reported as a retry; the real faults before it are', async () => {
  const ac = new AbortController();
  const events: string[] = [];
  const p = withRetry(async (attempt) => {
    if (attempt === 1) throw Object.assign(new Error('http://x/search: no answer within 0.3 s (request timeout)'), { name: 'ConnectionError' });
    // The second request is cut by the overall deadline: fetch rejects with the signal's own TimeoutError, which
    // looks retryable ("timeout") but is the deadline, not the service.
    ac.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    throw ac.signal.reason;
  }, { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0, random: () => 0 }, (e) => events.push((e.error as Error).message), ac.signal);
  await assert.rejects(p, (e) => e === ac.signal.reason);
  assert.deepEqual(events, ['http://x/search: no answer within 0.3 s (request timeout)']);
});
