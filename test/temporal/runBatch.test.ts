/**
 * `run --batch` end to end: the whole pipeline (build → embed → score) with a hosted OpenAI configuration embedded
 * through the fake provider's Batch API, the real OpenAI SDK, a dev server of the CLI's own. Asserted: nothing went
 * real time, every text of the benchmark was billed once inside a batch, the run's audit equals the invoice at the
 * batch price, and the scores are those of the same run embedded in real time on the same fake answers.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { freshState, startCli, writeSmallSource } from './pipelineSupport.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';

const MODEL = 'text-embedding-3-small';
const PRICE = 0.02;
let tmp: string;
let server: FakeEmbeddingServer;
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'run-batch-'));
  server = await startFakeEmbeddingServer({ dims: { [MODEL]: 8 } });
});
after(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('run --batch: the embed stage through the Batch API, each text billed once at the batch price, audit = invoice, the real-time run\'s scores', async () => {
  const src = join(tmp, 'src.jsonl');
  writeSmallSource(src, 2);
  const cfg = join(tmp, 'configs.json');
  writeFileSync(cfg, JSON.stringify({ configs: [{ config_id: 'oa-batch', family: 'openai', provider: 'openai', model: MODEL, dimensions: 8, batch_size: 16, base_url_env: 'FAKE_OA_URL', price_usd_per_million_tokens: PRICE }] }));
  const env = { OPENAI_API_KEY: 'k', FAKE_OA_URL: server.baseUrls.openai };
  const run = async (name: string, batch: boolean) => {
    const runDir = join(tmp, name);
    const cli = startCli(['run', '--source', src, '--run', runDir, '--configs', 'oa-batch', '--config-file', cfg, ...(batch ? ['--batch'] : [])], { ...env, EXECRETRIEVAL_STATE_DIR: freshState(join(tmp, `${name}-state`)) });
    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
    return runDir;
  };
  const realTime = await run('rt', false);
  const realTimeRequests = server.requests.length;
  assert.ok(realTimeRequests > 0 && server.requests.every((r) => !r.batch));

  const runDir = await run('bt', true);
  const mine = server.requests.slice(realTimeRequests);
  assert.deepEqual(mine.filter((r) => !r.batch), [], 'nothing went real time');
  const texts = mine.flatMap((r) => (r.body as { input: string[] }).input);
  const expected = server.requests.slice(0, realTimeRequests).flatMap((r) => (r.body as { input: string[] }).input);
  assert.deepEqual([...texts].sort(), [...expected].sort(), 'every text the real-time run sent, once, inside a batch');
  const invoice = (mine.reduce((a, r) => a + (r.billed_tokens ?? 0), 0) * PRICE * 0.5) / 1e6;
  const audit = JSON.parse(execFileSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'execretrieval.js'), 'audit', '--run', runDir, '--json'], { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] }));
  assert.ok(invoice > 0);
  assert.equal(audit.embedding.totals.cost_usd.toFixed(12), invoice.toFixed(12), 'audit = invoice at the batch price');
  // The same scores, field for field; only the run's name differs.
  const summary = (dir: string) => ({ ...JSON.parse(readFileSync(join(dir, 'report', 'summary.json'), 'utf8').replaceAll(dir, '<run>')), run: '<run>' });
  assert.deepEqual(summary(runDir), summary(realTime));
});
