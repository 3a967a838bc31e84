/**
 * The embedding ledger's bookkeeping rules, each with the situation itself: try numbers per batch, refused (HTTP
 * status: not billed) vs lost (no answer: may be billed), a `started` row reconciled when a later request carries
 * its texts or when its worker is dead, and which texts a run paid for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingLedger, batchIdOf, type StartBatch } from '../../activities/ledger/embeddingLedger.ts';
import { ledgerBook, workerMayBeAlive } from '../../activities/embeddings/batchBook.ts';
import { embeddingBatchBound } from '../../core/generation/cost.ts';
import { auditEmbeddingBatches } from '../../core/generation/audit.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';

function withLedger(fn: (l: EmbeddingLedger) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'er-eledger-'));
  const l = new EmbeddingLedger(join(dir, 'ledger.sqlite'));
  try {
    fn(l);
  } finally {
    l.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const start = (hashes: string[], over: Partial<StartBatch> = {}): StartBatch => ({
  run_id: 'r', sweep_id: 's', config_id: 'c', fingerprint: 'fp', side: 'document', provider: 'openai', model: 'm', hashes,
  ...embeddingBatchBound(hashes, 1), started_at: 't', worker: `${hostname()}:${process.pid}`, ...over,
});

test('try numbers count per batch (same texts, any order); an HTTP refusal is `error`, a missing answer is `lost`', () => {
  withLedger((l) => {
    assert.equal(batchIdOf('c', 'fp', ['a', 'b']), batchIdOf('c', 'fp', ['b', 'a']));
    assert.notEqual(batchIdOf('c', 'fp', ['a', 'b']), batchIdOf('c', 'fp2', ['a', 'b']));
    const r1 = l.startBatch(start(['a', 'b']));
    assert.equal(l.failBatch(r1, { http_status: 429, error: 'rate limited', latency_ms: 1 }), 'error');
    const r2 = l.startBatch(start(['b', 'a']));
    assert.equal(l.failBatch(r2, { http_status: null, error: 'socket hang up', latency_ms: 1 }), 'lost');
    const r3 = l.startBatch(start(['a', 'b']));
    l.finishBatch(r3, { tokens_reported: 7, tokens_estimated: null, cost_usd: 7e-6, latency_ms: 1 });
    const rows = l.batches('r');
    assert.deepEqual(rows.map((r) => [r.try_no, r.status]), [[1, 'error'], [2, 'lost'], [3, 'ok']]);
    const a = auditEmbeddingBatches(rows).totals;
    assert.deepEqual([a.requests, a.refused, a.lost_batches, a.billed_batches, a.tokens_reported], [3, 1, 1, 1, 7]);
    // The lost request's bound: 'a' and 'b' are a byte each, + 16 per text, at $1 per million tokens.
    assert.equal(a.lost_cost_usd_max, (2 + 32) / 1e6);
  });
});

test('a `started` row becomes `lost` when a later request of the run carries any of its texts; other runs and configurations are untouched', () => {
  withLedger((l) => {
    l.startBatch(start(['a', 'b', 'c']));
    l.startBatch(start(['c'], { run_id: 'other' }));
    l.startBatch(start(['c'], { config_id: 'c2' }));
    l.startBatch(start(['c', 'x'])); // carries 'c': the first request's answer never came
    const st = (run: string) => l.batches(run).map((r) => `${r.config_id}:${r.status}`);
    assert.deepEqual(st('r'), ['c:lost', 'c2:started', 'c:started']);
    assert.deepEqual(st('other'), ['c:started']);
  });
});

test('reconcileStarted: rows of a dead worker become `lost`, rows of a live one stay `started`', () => {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const deadWorker = `${hostname()}:${dead.stdout}`;
  assert.equal(workerMayBeAlive(deadWorker), false);
  assert.equal(workerMayBeAlive(`${hostname()}:${process.pid}`), true);
  assert.equal(workerMayBeAlive(`some-other-host:${dead.stdout}`), true, 'a worker on another host is never declared dead from here');
  withLedger((l) => {
    l.startBatch(start(['a'], { worker: deadWorker }));
    l.startBatch(start(['b']));
    assert.equal(l.reconcileStarted('r', workerMayBeAlive), 1);
    assert.deepEqual(l.batches('r').map((r) => r.status), ['lost', 'started']);
  });
});

test('ledgerBook: cost from the provider\'s tokens, or characters / 4 where it reports none; paidHashes are the answered ones', () => {
  withLedger((l) => {
    const config = { config_id: 'c', provider: 'gemini', model: 'm', price_usd_per_million_tokens: 0.15 } as EmbeddingConfig;
    const book = ledgerBook(l, { run_id: 'r', sweep_id: 's', config, fingerprint: 'fp', side: 'query' });
    const texts = ['twelve chars', 'abcd'];
    book.answered(book.sending(texts, ['h1', 'h2']), 16, null, 5);
    book.answered(book.sending(['x'], ['h3']), 1, 40, 5, 'sender:7');
    book.failed(book.sending(['y'], ['h4']), { http_status: 429, message: 'quota' }, 5);
    const [est, rep, refused] = l.batches('r');
    assert.deepEqual([est.tokens_reported, est.tokens_estimated, est.cost_usd], [null, 4, (4 * 0.15) / 1e6]);
    assert.deepEqual([rep.tokens_reported, rep.tokens_estimated, rep.cost_usd, rep.worker], [40, null, (40 * 0.15) / 1e6, 'sender:7']);
    assert.deepEqual([refused.status, refused.http_status], ['error', 429]);
    assert.deepEqual([...l.paidHashes('r', 'c', 'fp')].sort(), ['h1', 'h2', 'h3']);
    assert.deepEqual([...l.paidHashes('r', 'c', 'other-fp')], []);
  });
});
