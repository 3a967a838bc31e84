/** Loads the shipped inputs of generation: locked prompt sets (`data/prompts/`) and the price table (`data/prices.json`). */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../paths.ts';
import { PriceTable } from '../../core/generation/cost.ts';
import { formatIssues } from '../../core/jsonl.ts';
import type { PromptMessages, PromptSet } from '../../core/generation/prompts.ts';

const promptsDir = () => join(projectRoot(), 'data', 'prompts');

function part(id: string, name: string): string {
  const file = join(promptsDir(), `${id}.${name}.txt`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new Error(`prompt set "${id}": missing ${file}`);
  }
}

export function loadPromptSet(id: string): PromptSet {
  return { id, system: part(id, 'system'), user: part(id, 'user'), feedback: part(id, 'feedback') };
}

/** Hash of exactly what was sent, recorded with every call. */
export function promptSha256(m: PromptMessages): string {
  return createHash('sha256').update(m.system).update('\0').update(m.user).digest('hex');
}

/** Parsed once per worker while the file is unchanged (keyed by mtime): every LLM call looks prices up. */
const priceTables = new Map<string, { mtimeMs: number; table: PriceTable }>();

export function loadPriceTable(path = join(projectRoot(), 'data', 'prices.json')): PriceTable {
  const mtimeMs = statSync(path).mtimeMs;
  const hit = priceTables.get(path);
  if (hit?.mtimeMs === mtimeMs) return hit.table;
  const r = PriceTable.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!r.success) throw new Error(`${path}: ${formatIssues(r.error.issues)}`);
  priceTables.set(path, { mtimeMs, table: r.data });
  return r.data;
}
