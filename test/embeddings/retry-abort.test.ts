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
