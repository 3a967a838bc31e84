import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../../cli/main.ts';

/** Runs the CLI in-process and returns what it printed on stdout. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<string> {
  const out: string[] = [];
  const log = console.log;
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  try {
    await buildProgram().exitOverride().parseAsync(['node', 'execretrieval', ...args]);
  } finally {
    console.log = log;
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
  return out.join('\n');
}

test('configs --json lists every configuration with whether it can run here, user files included', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cfgcli-'));
  const extra = join(tmp, 'mine.json');
  writeFileSync(extra, JSON.stringify({ configs: [{ config_id: 'my-server', family: 'x', provider: 'openai-compatible', model: 'm', dimensions: 4, base_url: 'http://127.0.0.1:9/v1' }] }));
  const res = JSON.parse(await cli(['configs', '--json', '--config-file', extra], { OPENAI_API_KEY: 'set' }));
  const by = new Map(res.configs.map((c: { config_id: string }) => [c.config_id, c]));
  assert.equal((by.get('local-all-minilm-l6-v2') as any).runnable, true);
  assert.equal((by.get('local-static-64') as any).runnable, true);
  assert.equal((by.get('openai-text-embedding-3-small') as any).runnable, true);
  // Listed from the user's file; nothing listens at its URL, so it is unavailable with that reason (not a failed run).
  assert.deepEqual([(by.get('my-server') as any).runnable, (by.get('my-server') as any).detail], [false, 'server http://127.0.0.1:9/v1 does not answer (GET http://127.0.0.1:9/v1/models: a port fetch refuses to connect to (WHATWG bad ports))']);
  // Each with its kind and license (the weights' own, as the package or model card states it).
  const int8 = by.get('local-all-minilm-l6-v2-int8') as any;
  assert.deepEqual([int8.kind, int8.license, int8.runnable, int8.default_run], ['dense', 'Apache-2.0', true, false]);
  assert.deepEqual([(by.get('bm25') as any).kind, (by.get('local-static-64') as any).license], ['lexical', 'MIT']);
  assert.deepEqual([(by.get('local-splade-tiny') as any).kind, (by.get('local-splade-tiny') as any).runnable], ['sparse', true]);
  assert.deepEqual([(by.get('local-all-mpnet-base-v2') as any).runnable, (by.get('local-all-mpnet-base-v2') as any).default_run], [true, false]);
  assert.deepEqual(res.errors, []);
});

test('similarity --json prints the cosine matrix under a local configuration (static model, query side)', async () => {
  const cache = join(mkdtempSync(join(tmpdir(), 'simcli-')), 'c.sqlite');
  const res = JSON.parse(await cli(['similarity', '--config', 'local-static-64', '--json', 'The weather is lovely today.', "It's so sunny outside!", 'He drove to the stadium.'], { EXECRETRIEVAL_EMBED_CACHE: cache }));
  assert.equal(res.cosine.length, 3);
  // Same reference as local-models.test.ts (the package's own encoder): (1,2) 0.590427, (1,3) 0.421114.
  assert.ok(Math.abs(res.cosine[0][1] - 0.590427) < 1e-5);
  assert.ok(Math.abs(res.cosine[0][2] - 0.421114) < 1e-5);
  assert.ok(Math.abs(res.cosine[1][1] - 1) < 1e-6);
  await assert.rejects(cli(['similarity', '--config', 'nope', 'a', 'b'], { EXECRETRIEVAL_EMBED_CACHE: cache }), /unknown configuration 'nope'/);
});
