import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { CaseResult, Chunk, RetrievalRecord } from '../../schemas/repoIndex.ts';
import { FixtureRepo } from './fixtureRepo.ts';
import { tmpDir } from './helpers.ts';
import { SESSION_FILES, sessionExpiryCase } from './worked-fixtures.ts';
import { cli } from './cliHarness.ts';

/**
 * report.html as a reader opens it: a real run (index → eval, two configurations, a passing and a failing
 * case) over a repository holding a file of hostile HTML, rendered by headless Chromium. The rows on the
 * page are checked against records.jsonl / results.jsonl, the links against the files on disk.
 */
const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = `/** Parses the header. </pre></td></tr></table><script>window.pwned = 1</script><img src="x" onerror="window.pwned = 2"> & "quotes" 'too' */
export function parseHeader(raw: string) {
  return raw.split(':');
}
`;

const r = new FixtureRepo();
const work = tmpDir('execretrieval-report-');
const rev = r.commit('fixture', { ...SESSION_FILES, 'src/http/header.ts': HOSTILE });
const run = join(work, 'run');
const readJsonl = <T>(f: string): T[] =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

describe('report.html in headless Chromium', () => {
  let ctx: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const requests: string[] = [];

  before(async () => {
    const cases = join(work, 'cases.jsonl');
    const header = {
      id: 'parse-header',
      query: 'where is parseHeader that splits the raw header',
      repositoryRevision: rev,
      evidence: [{ id: 'def', anyOf: [{ file: 'src/http/header.ts', symbol: 'parseHeader', roles: ['definition'] }] }],
      cutoff: 3,
      queryClass: 'exact_identifier',
      context: { package: 'src/', openFile: 'src/http/server.ts' },
      rationale: 'the only definition',
    };
    writeFileSync(cases, [JSON.stringify(sessionExpiryCase(rev)), JSON.stringify(header)].join('\n') + '\n');
    const index = join(work, 'index');
    const ix = await cli('index', '--repo', r.dir, '--rev', rev, '--out', index);
    assert.equal(ix.code, 0, ix.err);
    const ev = await cli('eval', '--index', index, '--cases', cases, '--retrievers', 'bm25', '--variants', 'plain,ctx+rerank', '--out', run);
    assert.equal(ev.code, 0, ev.err);
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run \`node infra/bootstrap.mjs\` as root`);
    ctx = await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    page = ctx.pages()[0] ?? (await ctx.newPage());
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (q) => requests.push(q.url()));
    await page.goto(pathToFileURL(join(run, 'report.html')).href);
  });
  after(async () => {
    await ctx?.close();
    r.cleanup();
  });

  test('chunk text is shown as text: no script runs, no element injected, no request leaves the file', async () => {
    assert.deepEqual(problems, []);
    assert.ok(requests.every((u) => u.startsWith('file:')), requests.join(', '));
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('img').count(), 0);
    // The hostile comment is on the page verbatim, inside an excerpt.
    const excerpts = await page.$$eval('section.case tr.chunk pre', (els) => els.map((e) => e.textContent ?? ''));
    assert.ok(excerpts.some((t) => t.includes('</pre></td></tr></table><script>window.pwned = 1</script>')), 'hostile text shown literally');
  });

  test('one section per case × retriever, rows equal to the records (rank, chunk, rank before rerank), verdicts equal to the results', async () => {
    const records = readJsonl<RetrievalRecord>(join(run, 'records.jsonl'));
    const results = readJsonl<CaseResult>(join(run, 'results.jsonl'));
    const chunks = new Map(readJsonl<Chunk>(join(work, 'index', 'chunks.jsonl')).map((c) => [c.chunk_id, c]));
    assert.equal(records.length, 4);
    assert.equal(await page.locator('section.case').count(), records.length);
    assert.ok(results.some((x) => x.passed) && results.some((x) => !x.passed), 'the run has a pass and a failure');
    for (const rec of records) {
      const res = results.find((x) => x.case_id === rec.case_id && x.retriever === rec.retriever)!;
      const section = page.locator(`section.case[data-case="${rec.case_id}"][data-retriever="${rec.retriever}"]`);
      assert.equal(await section.count(), 1, `${rec.case_id} × ${rec.retriever}`);
      assert.equal(await section.getAttribute('data-passed'), res.passed ? '1' : '0');
      assert.equal(await section.locator('.verdict').textContent(), res.passed ? 'PASS' : `FAIL: ${res.diagnosis}`);
      assert.equal(await section.locator('.filters').textContent(), Object.entries(rec.filters).map(([k, v]) => `${k}=${v}`).join(', ') || 'none');
      const rows = await section.locator('tr.chunk').evaluateAll((els) =>
        els.map((e) => ({ chunk: e.getAttribute('data-chunk'), rank: e.getAttribute('data-rank'), before: e.getAttribute('data-rank-before'), ctx: e.getAttribute('data-in-context'), cells: [...e.querySelectorAll('td')].map((td) => td.textContent ?? '') })),
      );
      const cutoff = res.cutoff;
      const expected = rec.candidates_after_rerank.slice(0, cutoff + 5);
      assert.deepEqual(
        rows.map((x) => [x.chunk, Number(x.rank), x.ctx]),
        expected.map((c, i) => [c.chunk_id, c.rank, i < cutoff ? '1' : '0']),
      );
      // In context exactly the result's final context.
      assert.deepEqual(rows.filter((x) => x.ctx === '1').map((x) => x.chunk), res.final_context_ids);
      for (const [i, row] of rows.entries()) {
        const before = rec.candidates_before_rerank.find((c) => c.chunk_id === row.chunk);
        assert.equal(row.before, before ? String(before.rank) : '');
        const c = chunks.get(row.chunk!)!;
        assert.equal(row.cells[2], `${c.file}:${c.start_line}-${c.end_line}`);
        assert.equal(row.cells[3], c.symbols.join(', ') || '–');
        assert.equal(row.cells[4], expected[i].role);
        assert.ok(c.text.startsWith(row.cells[6].replace(/…$/, '')), 'the excerpt is the chunk head');
      }
      // The forbidden legacy chunk is marked wherever it is shown; the failing case's forbidden id agrees.
      for (const id of res.forbidden_chunk_ids) assert.match(rows.find((x) => x.chunk === id)!.cells[5], /FORBIDDEN/);
    }
  });

  test('links open the case record and, for failures, the evidence bundle', async () => {
    const hrefs = await page.$$eval('section.case a', (els) => els.map((e) => (e as HTMLAnchorElement).href));
    const results = readJsonl<CaseResult>(join(run, 'results.jsonl'));
    assert.equal(hrefs.filter((h) => h.includes('/evidence/')).length, results.filter((x) => !x.passed).length);
    assert.equal(hrefs.filter((h) => h.includes('/cases/')).length, results.length);
    for (const h of hrefs) assert.ok(existsSync(new URL(h).pathname), h);
  });
});
