/**
 * Batch prices: `data/prices.json` → `batch.models`, USD per million tokens for requests sent through a provider's
 * batch API (half the list price at OpenAI, Anthropic and Gemini; the file says where each figure comes from and
 * when it was entered). Returned as a PriceTable so the cost and bound functions of core/generation/cost.ts apply
 * unchanged.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PriceTable } from '../../core/generation/cost.ts';
import { formatIssues } from '../../core/jsonl.ts';
import { projectRoot } from '../paths.ts';

const BatchSection = z.object({
  source: z.string().min(1),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  models: PriceTable.shape.models,
});

let cached: { path: string; mtimeMs: number; table: PriceTable } | null = null;

export function loadBatchPriceTable(path = join(projectRoot(), 'data', 'prices.json')): PriceTable {
  const mtimeMs = statSync(path).mtimeMs;
  if (cached?.path === path && cached.mtimeMs === mtimeMs) return cached.table;
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { version?: string; batch?: unknown };
  const r = BatchSection.safeParse(raw.batch);
  if (!r.success) throw new Error(`${path} batch: ${formatIssues(r.error.issues)}`);
  const table: PriceTable = { version: `${raw.version ?? 'unknown'}+batch:${r.data.date}`, currency: 'USD', models: r.data.models };
  cached = { path, mtimeMs, table };
  return table;
}
