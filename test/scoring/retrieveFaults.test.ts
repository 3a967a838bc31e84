/**
 * `retrieve` against a service that is down, hangs or answers badly (issue 37): a refused connection said "fetch
 * failed" (no URL, no cause); a hanging service waited 120 s x 6 tries per request with no overall deadline; an
 * answer that failed validation was cached before it was checked, so the error repeated after the service was
 * fixed. Each fault is injected here by a real HTTP server (or a closed port).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { StopError } from '../../activities/faults.ts';
import { registerRetrieve } from '../../cli/commands/retrieve.ts';
import { startFakeRetrievalServer } from '../fake-provider/retrieval-server.ts';
import { readImportedRows } from '../../activities/scoring/rankConfig.ts';
import { CANONICAL_FIRST, QUERIES, writeTinyRun } from './fixtures/tinyBenchmark.ts';

describe('retrieve: dead, hanging and wrong services', () => {
  let dir: string;
  let runDir: string;
  let env: Record<string, string>;
  const logs: string[] = [];
  const cli = async (...args: string[]) => {
    const p = new Command();
    registerRetrieve(p, env);
    const err = console.error;
    const log = console.log;
    console.error = (...a: unknown[]) => void logs.push(a.join(' '));
    console.log = () => {};
    try {
      await p.exitOverride().parseAsync(['node', 'execretrieval', ...args]);
    } finally {
      console.error = err;
      console.log = log;
    }
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-retrieve-faults-'));
    runDir = join(dir, 'tiny');
    writeTinyRun(runDir);
    env = { EXECRETRIEVAL_RETRIEVAL_CACHE: join(dir, 'retrieval-cache.sqlite') };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a refused connection: exit 5 at the deadline, the line names the URL and the cause', { timeout: 60_000 }, async () => {
    // The retry waits are full-jitter (core/embeddings/retryDelay.ts): six tries can all fit in a long deadline
    // (CI saw it with 1.5 s); five waits summing under 0.4 s is a chance of about 1e-4.
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise<void>((r) => s.close(() => r()));
    await assert.rejects(cli('retrieve', '--run', runDir, url, '--name', 'dead', '--deadline', '400ms'), (e: StopError) => {
      assert.equal(e.exitCode, 5);
      assert.match(e.message, new RegExp(`^url \\(${url}\\): no complete answer within the deadline of 0\\.4 s \\(--deadline\\) \\(last: ${url}/search: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\); 0 of 4 queries answered`));
      assert.doesNotMatch(e.message, /\n/);
      return true;
    });
    assert.equal(existsSync(join(runDir, 'embeddings', 'dead')), false, 'nothing written');
  });

  test('a hanging service: each request times out (named so), the deadline ends the command with exit 5', { timeout: 60_000 }, async () => {
    let requests = 0;
    const hang: Server = createServer(() => void requests++); // accepts, never answers
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    try {
      await assert.rejects(cli('retrieve', '--run', runDir, url, '--name', 'hang', '--request-timeout', '300ms', '--deadline', '2s'), (e: StopError) => {
        assert.equal(e.exitCode, 5);
        assert.match(e.message, /no complete answer within the deadline of 2 s \(--deadline\) \(last: http:\/\/127\.0\.0\.1:\d+\/search: no answer within 0\.3 s \(request timeout\)\)/);
        return true;
      });
      assert.ok(requests >= 1);
      assert.ok(logs.some((l) => /no answer within 0\.3 s \(request timeout\); retry 1 in/.test(l)), 'a timeout reads as one, not "connection error"');
    } finally {
      hang.closeAllConnections();
      await new Promise<void>((r) => hang.close(() => r()));
    }
  });

  test('an answer naming an unknown corpus id is not cached: once the service is fixed, it is asked again', async () => {
    let poison = true;
    const server = await startFakeRetrievalServer((queryId) => {
      const hits = Object.entries(CANONICAL_FIRST[queryId]).map(([corpus_id, score]) => ({ corpus_id, score }));
      return poison && queryId === 'q_0001' ? [...hits, { corpus_id: 'not_in_corpus', score: 0.1 }] : hits;
    });
    try {
      await assert.rejects(cli('retrieve', '--run', runDir, server.url, '--name', 'svc'), (e: StopError) => e.exitCode === 2 && /1 unknown corpus ids \(q_0001 results\[2\]: not_in_corpus/.test(e.message));
      assert.equal(server.requests.length, QUERIES.length);
      poison = false;
      await cli('retrieve', '--run', runDir, server.url, '--name', 'svc');
      // The three good answers came from the cache; q_0001's bad one had not been kept.
      assert.deepEqual(server.requests.slice(QUERIES.length).map((r) => r.body.query_id), ['q_0001']);
      const rows = readImportedRows(join(runDir, 'embeddings', 'svc', 'imported-rankings.parquet')).filter((r) => r.query_id === 'q_0001');
      assert.deepEqual(rows.map((r) => r.corpus_id).sort(), Object.keys(CANONICAL_FIRST.q_0001).sort());
    } finally {
      await server.close();
    }
  });
});
