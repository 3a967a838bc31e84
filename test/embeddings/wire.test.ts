/**
 * What an embedding send carries through Temporal: the vectors' base64 form round-trips exactly and refuses a
 * wrong size; a send holds at most what fits the payload limits (hand-worked sizes); the ledger drops rows of
 * requests never sent and marks lost those whose sender vanished, leaving answered rows alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeVectors, encodeVectors } from '../../activities/embeddings/wireVectors.ts';
import { textsPerSend, vectorWireBytes } from '../../core/embeddings/wireLimits.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';

test('vectors round-trip through base64 bit for bit; a result of the wrong size is refused', () => {
  const rows = [Float32Array.from([1.5, -0, 3.4028234663852886e38]), Float32Array.from([Number.MIN_VALUE, -2.25, 1e-7])];
  const back = decodeVectors(encodeVectors(rows), 3, 2);
  assert.deepEqual(back.map((r) => [...new Uint32Array(r.buffer)]), rows.map((r) => [...new Uint32Array(r.buffer)]));
  assert.throws(() => decodeVectors(encodeVectors(rows), 3, 3), /24 bytes of vectors, expected 3 x 3 float32/);
});

test('a send holds what fits both limits: by vector bytes, by text bytes, and always at least one text', () => {
  // 1536 float32 = 6,144 bytes = 8,192 base64 characters.
  assert.equal(vectorWireBytes(1536), 8192);
  const limits = { text: 100, vector: 8192 * 3 };
  assert.equal(textsPerSend([10, 10, 10, 10, 10], 1536, limits), 3, 'three vectors fill the vector limit');
  assert.equal(textsPerSend([40, 40, 40], 8, limits), 2, 'the third text would pass 100 bytes');
  assert.equal(textsPerSend([500, 1], 8, limits), 1, 'an oversized text still goes, alone');
  assert.equal(textsPerSend([], 8, limits), 0);
});

test('ledger: reserved rows never sent are dropped; rows of a vanished sender become lost; answered rows keep their answer', () => {
  const ledger = new EmbeddingLedger(join(mkdtempSync(join(tmpdir(), 'wire-ledger-')), 'ledger.sqlite'));
  const row = (h: string) => ledger.startBatch({
    run_id: 'r', sweep_id: 's', config_id: 'c', fingerprint: 'f', side: 'document', provider: 'openai', model: 'm', hashes: [h],
    chars: 4, input_tokens_est: 1, tokens_max: 20, cost_usd_max: 1e-6, started_at: '2026-12-02T00:00:00Z', worker: 'host:1',
  });
  const [a, b, c] = [row('a'), row('b'), row('c')];
  ledger.finishBatch(a, { tokens_reported: 3, tokens_estimated: null, cost_usd: 6e-8, latency_ms: 5, worker: 'other:2' });
  ledger.dropUnsent([b, a]);
  assert.equal(ledger.loseStarted([c, a], 'no answer recorded: heartbeat timeout'), 1);
  const rows = ledger.batches('r');
  ledger.close();
  assert.deepEqual(rows.map((r) => [r.status, r.worker, r.texts]), [['ok', 'other:2', 1], ['lost', 'host:1', 1]]);
  assert.equal(rows[1].error, 'no answer recorded: heartbeat timeout');
});
