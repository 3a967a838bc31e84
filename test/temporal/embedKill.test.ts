/**
 * An embedding sweep SIGKILLed with a batch in flight, then run again, against a real dev server, the real OpenAI
 * SDK and the fake embedding provider, whose request log says what it billed (it answers the held batch after the
 * kill, as a real provider bills a request whose client died). Asserted: every request that left the machine is a
 * ledger row; the killed request is `lost` with its bound; what the audit and the embedding report total (every
 * sweep of the run) brackets the provider's bill, billed ≤ invoice ≤ billed + lost bound; the only texts sent twice
 * are the lost request's; and the rerun's texts found in the cache are attributed to the sweep that paid for them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestTemporal, type TestTemporal } from '../support/temporal.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { writeTinyBenchmark } from '../embeddings/sweep-fixture.ts';
import { embedSweep } from '../../workflows/embedSweep.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';

const MODEL = 'text-embedding-3-small';
const PRICE = 0.02; // USD per million tokens, the configuration's price below
let t: TestTemporal;
let server: FakeEmbeddingServer;
before(async () => {
  [t, server] = await Promise.all([startTestTemporal(), startFakeEmbeddingServer({ dims: { [MODEL]: 8 } })]);
});
after(async () => {
  await server?.close();
  await t?.stop();
});

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('embedding sweep SIGKILLed with a batch in flight: the rerun bills it as lost (bounded), the audit brackets the provider bill, cached texts are attributed', async () => {
  const runDir = join(t.tmp, 'runs', 'emb-kill');
  writeTinyBenchmark(runDir, 30); // 30 queries + 60 snippets = 90 distinct texts
  const cfgFile = join(t.tmp, 'kill-configs.json');
  writeFileSync(cfgFile, JSON.stringify({ configs: [{ config_id: 'oa-kill', family: 'openai', provider: 'openai', model: MODEL, dimensions: 8, batch_size: 8, base_url_env: 'FAKE_OA_URL', price_usd_per_million_tokens: PRICE }] }));
  const env = { OPENAI_API_KEY: 'k', FAKE_OA_URL: server.baseUrls.openai, EXECRETRIEVAL_EMBED_CACHE: join(t.tmp, 'kill-cache.sqlite') };
  const queues = t.uniqueQueues();
  // One batch in flight at a time, so the three answered before the held one are in the ledger when it is sent.
  const args = [{ queues, runDir, configIds: ['oa-kill'], configFiles: [cfgFile], hostedConcurrency: 1 }] as [Parameters<typeof embedSweep>[0]];

  // Three requests answered at once, the fourth held for 4 s: the worker is killed while the provider holds it.
  server.scriptModel(MODEL, { status: 'hold', ms: 0 }, { status: 'hold', ms: 0 }, { status: 'hold', ms: 0 }, { status: 'hold', ms: 4000 });
  const first = await t.spawnWorker(queues.prefix, env);
  const killed = await t.client.workflow.start(embedSweep, { taskQueue: queues.default, workflowId: `emb-kill-1-${queues.prefix}`, args });
  // The held request is the fourth: waiting for any request in flight could catch an answered one (held 0 ms) under
  // load, and the kill would then cut off the first batch, leaving the killed sweep nothing paid.
  const sentSoFar = () => server.requests.filter((r) => (r.body as { model?: string }).model === MODEL).length;
  await until(() => sentSoFar() >= 4 && server.inflight > 0, 120_000, 'the held fourth batch in flight');
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  await killed.terminate('the sweep was killed; a new one is started, as a rerun of the CLI would');

  await t.spawnWorker(queues.prefix, env);
  const res = await t.client.workflow.execute(embedSweep, { taskQueue: queues.default, workflowId: `emb-kill-2-${queues.prefix}`, args });
  assert.equal(res.results[0].status, 'ok', res.results[0].reason ?? '');
  await until(() => server.inflight === 0, 30_000, 'the held batch answered (and billed) by the provider');

  const sent = server.requests.filter((r) => (r.body as { model?: string }).model === MODEL);
  const billedTokens = sent.reduce((a, r) => a + (r.billed_tokens ?? 0), 0);
  const invoice = (billedTokens * PRICE) / 1e6;

  const ledger = new EmbeddingLedger(join(runDir, 'ledger.sqlite'));
  const rows = ledger.batches('emb-kill');
  ledger.close();
  // Every request the provider saw is a row; the row of the request the kill cut off is `lost`, none stays `started`.
  assert.equal(rows.length, sent.length, 'one ledger row per request that left the machine');
  assert.equal(rows.filter((r) => r.status === 'started').length, 0);
  const lost = rows.filter((r) => r.status === 'lost');
  assert.ok(lost.length >= 1, 'the batch in flight at the kill is lost');
  for (const r of lost) assert.ok(r.input_tokens_est > 0 && r.cost_usd_max > 0, 'a lost request keeps its bounds');
  // The only texts sent twice are the lost requests' (their vectors never reached the cache).
  const textsSent = sent.reduce((a, r) => a + ((r.body as { input: string[] }).input.length), 0);
  assert.equal(textsSent, 90 + lost.reduce((a, r) => a + r.texts, 0));
  // Answered rows carry exactly what the provider reported for them.
  const okTokens = rows.filter((r) => r.status === 'ok').reduce((a, r) => a + (r.tokens_reported ?? 0), 0);
  const lostBilled = billedTokens - okTokens;
  assert.ok(lostBilled > 0 && lostBilled <= lost.reduce((a, r) => a + r.tokens_max, 0), `tokens billed for lost requests (${lostBilled}) within their bound`);

  // The report totals every sweep of the run: billed ≤ invoice ≤ billed + lost bound; this sweep alone under-reports.
  const report = JSON.parse(readFileSync(join(runDir, 'embeddings', 'report.json'), 'utf8'));
  assert.ok(report.total_cost_usd <= invoice + 1e-12, `report $${report.total_cost_usd} vs invoice $${invoice}`);
  assert.ok(invoice <= report.total_cost_usd + report.lost_cost_usd_max + 1e-12, `invoice $${invoice} within report + lost bound $${report.lost_cost_usd_max}`);
  assert.equal(report.total_tokens, okTokens);
  assert.ok(report.this_sweep_cost_usd < report.total_cost_usd, 'the rerun alone paid less than the run did');
  const c = report.configs[0];
  assert.ok(c.stats.cached > 0, 'the rerun found the killed sweep\'s answered batches in the cache');
  assert.equal(c.texts_paid_elsewhere, 0, 'every cached text was paid for by a sweep of this run');
  assert.equal(c.ledger.by_sweep.length, 2);
  const killedSweep = c.ledger.by_sweep.find((s: { sweep_id: string }) => s.sweep_id.startsWith('emb-kill-1-'));
  assert.equal(killedSweep.billed_texts, c.stats.cached, 'the texts cached in the rerun are the ones the killed sweep paid for');

  // The audit says the same, from the ledger.
  const bin = new URL('../../bin/execretrieval.js', import.meta.url).pathname;
  const audit = JSON.parse(execFileSync(process.execPath, [bin, 'audit', '--run', runDir, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  assert.equal(audit.generation, null);
  assert.ok(Math.abs(audit.embedding.totals.cost_usd - report.total_cost_usd) < 1e-15);
  assert.equal(audit.embedding.totals.lost_batches, lost.length);
  console.error(`sent ${textsSent} texts for 90 distinct; ${lost.length} lost request(s); invoice $${invoice.toExponential(4)}; audit $${audit.embedding.totals.cost_usd.toExponential(4)} + at most $${audit.embedding.totals.lost_cost_usd_max.toExponential(4)}; the rerun alone $${report.this_sweep_cost_usd.toExponential(4)}`);
});
