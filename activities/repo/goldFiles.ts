import { readFileSync } from 'node:fs';
import { jsonlFiles } from '../paths.ts';
import type { GoldCase } from '../../schemas/gold.ts';
import { parseGoldJsonl, type GoldError } from '../../core/repo/goldParse.ts';

/**
 * Loads gold cases from a .jsonl file or every *.jsonl under a directory; every bad case is reported.
 * `origin` says where each loaded case is (file and line), for errors the run finds later (stale targets).
 */
export function loadGold(path: string): { cases: GoldCase[]; errors: GoldError[]; origin: Map<string, { file: string; line: number }> } {
  const files = jsonlFiles(path);
  const cases: GoldCase[] = [];
  const errors: GoldError[] = [];
  const firstFile = new Map<string, string>();
  const origin = new Map<string, { file: string; line: number }>();
  for (const f of files) {
    const r = parseGoldJsonl(readFileSync(f, 'utf8'), f);
    errors.push(...r.errors);
    for (const c of r.cases) {
      const prev = firstFile.get(c.id);
      if (prev) {
        errors.push({ file: f, line: 0, case_id: c.id, field: 'id', message: `duplicate id (also in ${prev})` });
        continue;
      }
      firstFile.set(c.id, f);
      origin.set(c.id, { file: f, line: r.lines.get(c.id) ?? 0 });
      cases.push(c);
    }
  }
  return { cases, errors, origin };
}
