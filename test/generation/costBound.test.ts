/**
 * The cost bound a `lost` request is shown with, for every priced provider: each LLM model in data/prices.json
 * (every endpoint of its provider, with and without a reasoning / thinking budget) and each priced embedding
 * configuration in data/embedding-configs.json. The request goes through the real SDK to a fake that bills it as
 * the most the request allows (every prompt byte a token, the whole output cap the request body states; for
 * embeddings every byte of every text): the row's worst case, recorded before sending, must cover that bill,
 * and the row's billed cost must equal the provider's usage × the table's price.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fake-provider/embeddings-server.ts';
import { generateEntryDirect } from './directGeneration.ts';
import { Ledger, closeLedgers } from '../../activities/ledger/ledger.ts';
import { EmbeddingLedger } from '../../activities/ledger/embeddingLedger.ts';
import { ledgerBook } from '../../activities/embeddings/batchBook.ts';
import { textHash } from '../../activities/embeddings/cache.ts';
import { createProvider } from '../../activities/embeddings/providers/index.ts';
import { invocationFingerprint, prepareText, sideOf } from '../../core/embeddings/prepare.ts';
import { PriceTable } from '../../core/generation/cost.ts';
import { ENDPOINTS, type LlmProvider } from '../../core/generation/types.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';

const root = new URL('../../', import.meta.url).pathname;
const prices = PriceTable.parse(JSON.parse(readFileSync(join(root, 'data/prices.json'), 'utf8')));
const embeddingConfigs = loadRegistry({ root, env: {} }).entries.map((e) => e.config).filter((c) => (c.price_usd_per_million_tokens ?? 0) > 0);

let llm: FakeLlmServer;
let dir: string;
before(async () => {
  llm = await startFakeLlmServer();
  dir = mkdtempSync(join(tmpdir(), 'cost-bound-'));
});
after(async () => {
  closeLedgers();
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});

const llmCases = Object.keys(prices.models)
  .map((k) => k.split('/') as [string, string])
  .filter(([provider]) => provider in ENDPOINTS)
  .flatMap(([provider, model]) => (ENDPOINTS[provider as LlmProvider] as readonly string[]).flatMap((endpoint) => [undefined, 'high'].map((effort) => ({ provider, model, endpoint, effort }))));

test('the table covers every LLM provider with a price and every priced embedding provider', () => {
  assert.deepEqual([...new Set(llmCases.map((c) => c.provider))].sort(), ['anthropic', 'gemini', 'openai']);
  assert.deepEqual([...new Set(embeddingConfigs.map((c) => c.provider))].sort(), ['cohere', 'gemini', 'mistral', 'openai', 'voyage']);
});

for (const c of llmCases) {
  test(`LLM ${c.provider}/${c.model} ${c.endpoint}${c.effort ? ` (reasoning ${c.effort})` : ''}: worst case recorded before sending ≥ the most the provider can bill`, async () => {
    const price = prices.models[`${c.provider}/${c.model}`];
    const name = `bound_${c.provider}_${c.model}_${c.endpoint}_${c.effort ?? 'none'}`.replace(/[^A-Za-z0-9_]/g, '_');
    llm.script(name, ['max_usage']);
    const runDir = join(dir, name);
    const settings = { provider: c.provider, model: c.model, endpoint: c.endpoint, max_output_tokens: 3000, ...(c.effort ? { reasoning_effort: c.effort } : {}) } as never;
    const r = await generateEntryDirect(llm.env, { runId: 'r', runDir, entry: { entry_id: name, function_name: name, query: 'Sum a window of a list', domain: 'collections' }, attemptNo: 1, settings, promptId: 'entry.v1' });
    assert.ok(r.ok, r.ok ? '' : r.error);
    const billed = llm.log.find((l) => l.subject === name)!.usage!;
    const invoice = (billed.input_tokens * price.input + billed.output_tokens * price.output) / 1e6;
    const ledger = new Ledger(join(runDir, 'ledger.sqlite'));
    const [row] = ledger.calls('r');
    ledger.close();
    assert.ok(Math.abs(row.cost_usd! - invoice) < 1e-12, `ledger $${row.cost_usd} = usage × price $${invoice}`);
    assert.ok(invoice <= row.cost_usd_max!, `bound $${row.cost_usd_max} covers the worst bill $${invoice}`);
    // And it is a bound, not a guess an order of magnitude off: within 10% of the worst bill.
    assert.ok(row.cost_usd_max! <= invoice * 1.1, `bound $${row.cost_usd_max} within 10% of $${invoice}`);
  });
}

// One text per request, so each text's bill, row and bound can be compared alone.
for (const config of embeddingConfigs.map((c) => ({ ...c, batch_size: 1 }))) {
  test(`embedding ${config.config_id} (${config.provider}): worst case recorded before sending ≥ the bill; billed = usage × price`, async () => {
    const key = config.api_key_env ?? { openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY', mistral: 'MISTRAL_API_KEY', cohere: 'COHERE_API_KEY' }[config.provider as string]!;
    // A server per configuration: two configurations of one model may ask for different dimensions.
    const emb: FakeEmbeddingServer = await startFakeEmbeddingServer({ billing: 'bytes', dims: { [config.model]: config.dimensions ?? 8 } });
    const penv = { env: { [key]: 'k' }, modelRoot: join(dir, 'models'), baseUrls: emb.baseUrls };
    const ledgerPath = join(dir, `${config.config_id}.sqlite`);
    const ledger = new EmbeddingLedger(ledgerPath);
    const before = emb.requests.length;
    try {
      const items = ['def add(a, b):\n    return a + b\n', 'Return the sum — of two numbers, «unicode» included.', 'x'].map((text, i) => ({ id: String(i), text }));
      // As the sweep books a request: its row (with the bound) written before it is sent, completed from the answer.
      const book = ledgerBook(ledger, { run_id: 'r', sweep_id: 's', config, fingerprint: invocationFingerprint(config, 'document'), side: 'document' });
      const provider = await createProvider(config, penv);
      for (const it of items) {
        const text = prepareText(sideOf(config, 'document'), it.text);
        const row = book.sending([text], [textHash(text)]);
        const res = await provider.embed([text], 'document');
        book.answered(row, text.length, res.tokens, 0);
      }
      await provider.close?.();
      const sent = emb.requests.slice(before);
      const rows = ledger.batches('r');
      assert.equal(sent.length, 3);
      assert.equal(rows.length, 3);
      const price = config.price_usd_per_million_tokens!;
      // Requests go out one at a time, so row i is request i.
      rows.forEach((row, i) => {
        const invoice = (sent[i].billed_tokens! * price) / 1e6;
        assert.equal(row.status, 'ok');
        // Gemini reports no usage: the row then carries the estimate, which need not equal the bill; the others report it.
        if (config.provider !== 'gemini') assert.ok(Math.abs(row.cost_usd! - invoice) < 1e-15, `ledger $${row.cost_usd} = usage × price $${invoice}`);
        assert.ok(invoice <= row.cost_usd_max, `bound $${row.cost_usd_max} covers the worst bill $${invoice}`);
      });
    } finally {
      ledger.close();
      await emb.close();
    }
  });
}
