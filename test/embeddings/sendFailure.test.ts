/**
 * A connection failure of an embedding SDK says where and why (issue 37: a dead base URL read "connection error:
 * fetch failed" after ten tries). The fault is real: fetch to a closed port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failureOf } from '../../activities/embeddings/sendActivities.ts';

test('fetch to a closed port: the failure names the address and the refusal, and stays retryable', async () => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  const err = await fetch(`http://127.0.0.1:${port}/v1/embed`, { method: 'POST' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof Error);
  const f = failureOf(err, 0, 1);
  assert.match(f.message, new RegExp(`^fetch failed \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)$`));
  assert.equal(f.retryable, true);
});
