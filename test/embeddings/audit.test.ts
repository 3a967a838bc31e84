import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeEmbeddingAudit } from '../../activities/embeddings/accounting.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { embeddingBatchBound } from '../../core/generation/cost.ts';

const stats = (texts: number, embedded: number, tokens: number, cost: number) => ({ texts, unique_texts: texts, cached: texts - embedded, embedded, batches: 1, retries: 0, tokens_reported: tokens, tokens_estimated: 0, cost_usd: cost });

/** A batch row as the sweep writes it: started with its bounds, then answered (tokens, cost) or left as it is. */
function batch(l: EmbeddingLedger, run_id: string, config_id: string, hashes: string[], answer: { tokens: number; cost: number } | 'lost' | 'refused') {
  const texts = hashes.map((h) => `text ${h}`);
  const row = l.startBatch({ run_id, sweep_id: 's1', config_id, fingerprint: 'fp', side: 'document', provider: 'openai', model: 'm', hashes, ...embeddingBatchBound(texts, 0.02), started_at: 't', worker: 'h:1' });
  if (answer === 'lost') l.failBatch(row, { http_status: null, error: 'socket hang up', latency_ms: 1 });
  else if (answer === 'refused') l.failBatch(row, { http_status: 429, error: 'rate limited', latency_ms: 1 });
  else l.finishBatch(row, { tokens_reported: answer.tokens, tokens_estimated: null, cost_usd: answer.cost, latency_ms: 1 });
}

test('audit: embedding tokens and cost per configuration from the ledger, to Parquet and the printed table', () => {
  const run = mkdtempSync(join(tmpdir(), 'er-audit-'));
  try {
    mkdirSync(join(run, 'embeddings'), { recursive: true });
    const l = new EmbeddingLedger(join(run, 'ledger.sqlite'));
    const id = run.split('/').at(-1)!;
    batch(l, id, 'openai-small', ['a', 'b', 'c'], { tokens: 700, cost: 0.000014 });
    batch(l, id, 'openai-small', ['d', 'e', 'f'], 'refused');
    batch(l, id, 'openai-small', ['d', 'e', 'f'], { tokens: 500, cost: 0.00001 });
    batch(l, id, 'openai-small', ['g'], 'lost');
    batch(l, 'another-run', 'openai-small', ['z'], { tokens: 99, cost: 1 }); // not this run's: not counted
    batch(l, id, 'local', ['a'], { tokens: 900, cost: 0 });
    l.close();
    writeFileSync(join(run, 'embeddings', 'report.json'), JSON.stringify({
      configs: [
        { config_id: 'openai-small', status: 'ok', stats: stats(10, 6, 1200, 0.000024) },
        { config_id: 'local', status: 'ok', stats: stats(10, 10, 900, 0) },
        { config_id: 'gemini', status: 'unavailable', reason: 'no API key: set GEMINI_API_KEY', stats: null },
      ],
    }));
    const a = writeEmbeddingAudit(run)!;
    assert.deepEqual(a.rows.map((r) => [r.config_id, r.embedded, r.cached, r.tokens_reported, r.requests, r.lost_requests]), [
      ['openai-small', 6, 4, 1200, 4, 1],
      ['local', 10, 0, 900, 1, 0],
      ['gemini', 0, 0, 0, 0, 0],
    ]);
    assert.ok(Math.abs(a.totals.cost_usd - 0.000024) < 1e-12);
    // The lost batch's bound: "text g" is 6 bytes + 16 tokens of per-text overhead, at $0.02 per million.
    assert.equal(a.rows[0].lost_cost_usd_max, (6 + 16) * 0.02 / 1e6);
    const venvPython = new URL('../../.venv/bin/python', import.meta.url).pathname;
    const seen = execFileSync(venvPython, ['-c', 'import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(t.num_rows, sum(t.column("tokens_reported").to_pylist()), t.schema.field("cost_usd").type)', a.file], { encoding: 'utf8' });
    assert.equal(seen.trim(), '3 2100 double');
    const bin = new URL('../../bin/execretrieval.js', import.meta.url).pathname;
    const out = execFileSync(process.execPath, [bin, 'audit', run], { encoding: 'utf8' });
    assert.match(out, /openai-small\s+10\s+6\s+4\s+1200\s+0\s+0\.0000\s+4\s+1\s/);
    assert.match(out, /1 lost requests \(sent, no answer recorded\): ~2 input tokens, at most \$0\.000000/);
    assert.match(out, /1 configurations did not run/);
    const empty = mkdtempSync(join(tmpdir(), 'er-audit-empty-'));
    const r = spawnSync(process.execPath, [bin, 'audit', empty], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /neither a generation ledger nor an embedding report/);
    rmSync(empty, { recursive: true, force: true });
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
});
