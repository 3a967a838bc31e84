/**
 * Batch prices: `data/prices.json` → `batch.models`, USD per million tokens for requests sent through a provider's
 * batch API (half the list price at OpenAI, Anthropic and Gemini; `batch.sources` says, per provider, the discount,
 * where it is documented and when it was read). Returned as a PriceTable so the cost and bound functions of core/generation/cost.ts apply
 * unchanged.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PriceTable } from '../../core/generation/cost.ts';
import { formatIssues } from '../../core/jsonl.ts';
import { projectRoot } from '../paths.ts';

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const BatchSection = z.object({
  source: z.string().min(1),
  date: Day,
  /** Per provider: the discount its batch API documents, where, and when it was read. */
  sources: z.record(z.string(), z.object({ discount: z.number().gt(0).lte(1), source: z.string().min(1), date: Day })),
  models: PriceTable.shape.models,
});

/**
 * A batch price is the list price times its provider's documented discount: a figure typed wrong (or left behind
 * when a list price changed) would make the audit disagree with the invoice, so it is refused here, named.
 */
function checkAgainstList(path: string, section: z.infer<typeof BatchSection>, list: unknown): void {
  const models = PriceTable.shape.models.safeParse(list);
  if (!models.success) throw new Error(`${path} models: ${formatIssues(models.error.issues)}`);
  for (const [key, batch] of Object.entries(section.models)) {
    const provider = key.split('/')[0];
    const src = section.sources[provider];
    if (!src) throw new Error(`${path} batch.models.${key}: no batch.sources.${provider} (the discount it is priced at, its source and date)`);
    const listed = models.data[key];
    if (!listed) throw new Error(`${path} batch.models.${key}: no list price in models`);
    for (const k of ['input', 'output'] as const) {
      if (Math.abs(batch[k] - listed[k] * src.discount) > 1e-9) {
        throw new Error(`${path} batch.models.${key}.${k}: ${batch[k]}, but the list price ${listed[k]} x ${provider}'s batch discount ${src.discount} is ${listed[k] * src.discount}`);
      }
    }
  }
}

let cached: { path: string; mtimeMs: number; table: PriceTable } | null = null;

export function loadBatchPriceTable(path = join(projectRoot(), 'data', 'prices.json')): PriceTable {
  const mtimeMs = statSync(path).mtimeMs;
  if (cached?.path === path && cached.mtimeMs === mtimeMs) return cached.table;
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { version?: string; batch?: unknown; models?: unknown };
  const r = BatchSection.safeParse(raw.batch);
  if (!r.success) throw new Error(`${path} batch: ${formatIssues(r.error.issues)}`);
  checkAgainstList(path, r.data, raw.models);
  const table: PriceTable = { version: `${raw.version ?? 'unknown'}+batch:${r.data.date}`, currency: 'USD', models: r.data.models };
  cached = { path, mtimeMs, table };
  return table;
}
