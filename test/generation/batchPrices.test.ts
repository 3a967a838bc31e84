/**
 * data/prices.json → batch: every batch price is its list price times the discount its provider documents, and
 * each provider's discount comes with its source and date; the loader refuses a file where that does not hold,
 * with one line naming the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBatchPriceTable } from '../../activities/batch/prices.ts';
import { EMBEDDING_BATCH_PRICE_FACTOR } from '../../activities/batch/embedBatch.ts';

const PATH = join(process.cwd(), 'data', 'prices.json');
const file = () => JSON.parse(readFileSync(PATH, 'utf8'));

test('data/prices.json: each batch price is half its list price, its provider with a source and a date', () => {
  const f = file();
  const table = loadBatchPriceTable(PATH);
  assert.ok(Object.keys(table.models).length >= 3);
  for (const [key, p] of Object.entries(table.models)) {
    const provider = key.split('/')[0];
    const src = f.batch.sources[provider];
    assert.equal(src.discount, 0.5, `${provider}: the documented batch discount is 50%`);
    assert.match(src.source, /\w+\.\w+\/\S+/, `${provider}: where it is documented`);
    assert.match(src.date, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(p.input, f.models[key].input / 2, `${key} input`);
    assert.equal(p.output, f.models[key].output / 2, `${key} output`);
  }
  // embed --batch prices a configuration's own list price with OpenAI's discount: the same figure.
  assert.equal(EMBEDDING_BATCH_PRICE_FACTOR, f.batch.sources.openai.discount);
  // Every provider the generator can batch has its prices there.
  for (const provider of ['openai', 'anthropic', 'gemini']) assert.ok(Object.keys(table.models).some((k) => k.startsWith(`${provider}/`)), provider);
});

function broken(edit: (f: any) => void): string {
  const f = file();
  edit(f);
  const p = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.json');
  writeFileSync(p, JSON.stringify(f));
  return p;
}

test('a batch price that is not list x discount, or whose provider has no source, is refused with one line naming it', () => {
  const wrong = broken((f) => (f.batch.models['openai/gpt-5.4'].output = 10));
  assert.throws(() => loadBatchPriceTable(wrong), (e: Error) => /batch\.models\.openai\/gpt-5\.4\.output: 10, but the list price 10 x openai's batch discount 0\.5 is 5$/.test(e.message) && !e.message.includes('\n'));
  const unsourced = broken((f) => delete f.batch.sources.anthropic);
  assert.throws(() => loadBatchPriceTable(unsourced), /batch\.models\.anthropic\/claude-sonnet-4-6: no batch\.sources\.anthropic/);
  const undated = broken((f) => delete f.batch.sources.gemini.date);
  assert.throws(() => loadBatchPriceTable(undated), /batch: .*sources.*gemini.*date/);
  const unlisted = broken((f) => delete f.models['openai/gpt-4.1']);
  assert.throws(() => loadBatchPriceTable(unlisted), /batch\.models\.openai\/gpt-4\.1: no list price in models/);
});
