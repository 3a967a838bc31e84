import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeEmbeddingAudit } from '../../activities/embeddings/accounting.ts';

const stats = (texts: number, embedded: number, tokens: number, cost: number) => ({ texts, unique_texts: texts, cached: texts - embedded, embedded, batches: 1, retries: 0, tokens_reported: tokens, tokens_estimated: 0, cost_usd: cost });

test('audit: embedding tokens and cost per configuration, to Parquet and the printed table', () => {
  const run = mkdtempSync(join(tmpdir(), 'er-audit-'));
  try {
    mkdirSync(join(run, 'embeddings'), { recursive: true });
    writeFileSync(join(run, 'embeddings', 'report.json'), JSON.stringify({
      configs: [
        { config_id: 'openai-small', status: 'ok', stats: stats(10, 6, 1200, 0.000024) },
        { config_id: 'local', status: 'ok', stats: stats(10, 10, 900, 0) },
        { config_id: 'gemini', status: 'unavailable', reason: 'no API key: set GEMINI_API_KEY', stats: null },
      ],
    }));
    const a = writeEmbeddingAudit(run)!;
    assert.deepEqual(a.rows.map((r) => [r.config_id, r.embedded, r.cached, r.tokens_reported]), [['openai-small', 6, 4, 1200], ['local', 10, 0, 900], ['gemini', 0, 0, 0]]);
    assert.equal(a.total_cost_usd, 0.000024);
    const venvPython = new URL('../../.venv/bin/python', import.meta.url).pathname;
    const seen = execFileSync(venvPython, ['-c', 'import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(t.num_rows, sum(t.column("tokens_reported").to_pylist()), t.schema.field("cost_usd").type)', a.file], { encoding: 'utf8' });
    assert.equal(seen.trim(), '3 2100 double');
    const bin = new URL('../../bin/execretrieval.js', import.meta.url).pathname;
    const out = execFileSync(process.execPath, [bin, 'audit', run], { encoding: 'utf8' });
    assert.match(out, /openai-small\s+10\s+6\s+4\s+1200/);
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
