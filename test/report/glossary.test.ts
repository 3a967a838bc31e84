import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../activities/paths.ts';
import { GLOSSARY } from '../../core/report/glossary.ts';
import { METRICS, TIE_AWARE_SUFFIX } from '../../core/metrics/per_query.ts';
import { HEADLINE } from '../../core/report/headline.ts';

test('docs/metrics.md carries every glossary definition verbatim', () => {
  const doc = readFileSync(join(projectRoot(), 'docs', 'metrics.md'), 'utf8');
  for (const d of GLOSSARY) {
    assert.ok(doc.includes(d.text), `docs/metrics.md lacks the definition of ${d.name}`);
    assert.ok(doc.includes(`\`${d.name}\``), `docs/metrics.md lacks the heading ${d.name}`);
  }
});

test('every metric and headline column has a glossary entry, and each entry names an existing file', () => {
  const names = new Set(GLOSSARY.map((d) => d.name));
  const entryOf = (m: string) =>
    m.endsWith(TIE_AWARE_SUFFIX) ? '<metric>_ta' : m.replace(/@\d+$/, '@k').replace(/^rr_exec@k$/, 'rr_exec@10');
  for (const m of [...METRICS, ...HEADLINE]) assert.ok(names.has(entryOf(m)), `${m} has no glossary entry (looked for ${entryOf(m)})`);
  for (const d of GLOSSARY) readFileSync(join(projectRoot(), d.code), 'utf8');
});
