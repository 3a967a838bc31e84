import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryIntent, queryProse } from '../../core/repo/intent.ts';
import { DEFAULT_RERANK_WEIGHTS, rerank } from '../../core/repo/rerank.ts';
import type { SourceRole } from '../../schemas/gold.ts';

/**
 * Intent rules on a table of real queries: those of the shipped gold sets (data/gold, data/second-codebase),
 * the shapes issue 29 found misread (a URL or path inside a stack trace read as a request for examples,
 * configuration questions read as definition requests), identifiers and behaviour descriptions.
 */
const TABLE: [string, ReturnType<typeof queryIntent>][] = [
  // Stack traces and error messages: the code that raises, never "examples" for a URL or path inside.
  ["requests.exceptions.MissingSchema: Invalid URL 'example.com/api': No scheme supplied. Perhaps you meant https://example.com/api?", 'definition'],
  ["requests.exceptions.InvalidSchema: No connection adapters were found for 'htps://example.com'", 'definition'],
  ['requests.exceptions.TooManyRedirects: Exceeded 30 redirects.', 'definition'],
  ['IndexInvalidError: index build is not completed; the run is invalid', 'definition'],
  [
    'Traceback (most recent call last):\n  File "/srv/examples/app.py", line 12, in <module>\n    r = httpx.get("https://api.example.com/usage")\n  File "/usr/lib/python3/site-packages/httpx/_api.py", line 195, in get\nhttpx.ConnectError: [Errno 111] Connection refused',
    'definition',
  ],
  [
    "TypeError: Cannot read properties of undefined (reading 'send')\n    at handler (/app/examples/server.ts:14:9)\n    at Layer.handle (/app/node_modules/router/lib/layer.js:152:17)",
    'definition',
  ],
  ['I mounted one adapter for https://api.example.com/ and another for https://, which one handles a request?', 'neutral'],
  ['GET https://example.com/examples/usage returns 404 after upgrading', 'neutral'],
  // Configuration questions: config intent (config files and defaults in code both preferred).
  ['How are the gate profiles configured (number of distractors and tests)?', 'config'],
  ['Which paths are excluded from the repository index by default?', 'config'],
  ['where are the defaults for how many connections are kept per host and how many times a request is retried?', 'config'],
  ["I set an environment variable pointing at my company's CA certificates; where does requests pick it up?", 'config'],
  ['where is the User-Agent that gets sent by default configured?', 'config'],
  ['which setting in pyproject.toml turns on strict mode?', 'config'],
  // Identifiers: their definition.
  ['buildBm25Index', 'definition'],
  ['should_strip_auth', 'definition'],
  ['CaseInsensitiveDict', 'definition'],
  ['Session.resolve_redirects', 'definition'],
  ['What is RetryPolicy?', 'definition'],
  ['where is the package\'s version number defined?', 'definition'],
  // Usage examples.
  ['Show me examples of how openOracle is called', 'examples'],
  ['Show me examples of tests that build a FixtureRepo git repository', 'examples'],
  ["where are the tests that make sure credentials aren't leaked on a redirect to another host", 'examples'],
  ["tests showing that header lookups don't care about upper or lower case", 'examples'],
  ['how do I use createSession', 'examples'],
  // Behaviour descriptions: wording decides, a path or a dotted name in them does not.
  ['How does the repository evaluation decide whether a gold case passed at its cutoff?', 'definition'],
  ['reciprocal rank fusion of several ranked lists', 'neutral'],
  ['save a multi-gigabyte download to disk bit by bit without reading all of it first', 'neutral'],
  ['pick up the username and password from ~/.netrc when I don\'t pass auth', 'neutral'],
  ['response.text comes out garbled when the server sends no charset, how is the encoding picked?', 'neutral'],
];

test('query intent, table of real queries', () => {
  const wrong = TABLE.filter(([q, want]) => queryIntent(q) !== want).map(([q, want]) => `${JSON.stringify(q.slice(0, 70))}: ${queryIntent(q)}, want ${want}`);
  assert.deepEqual(wrong, []);
});

test('only prose is read: URLs, paths, dotted names, quoted strings and stack frames are removed', () => {
  assert.equal(queryProse('see https://example.com/examples and examples/app.py or httpx._client, "usage" then'), 'see and or then');
  assert.equal(queryProse('boom\n    at run (/srv/examples/a.ts:1:2)\nend'), 'boom end');
});

test('a configuration question no longer demotes the config chunk that answers it', () => {
  const c = (id: string, role: SourceRole, score: number) => ({ chunk_id: id, file: `${id}.x`, symbols: [], role, score });
  // Base scores min-max normalise to 1, 0.7, 0.
  const cands = [c('pyproject', 'config', 1), c('code', 'definition', 0.7), c('glue', 'call_site', 0)];
  const config = 'where is the default request timeout set?';
  assert.equal(queryIntent(config), 'config');
  assert.deepEqual(rerank(config, cands, undefined, DEFAULT_RERANK_WEIGHTS).map((x) => x.chunk_id), ['pyproject', 'code', 'glue']);
  // Read as a definition request (the old rule for configuration wording), the definition's role bonus put
  // it above the config chunk that ranked first: 0.7 + 0.4 > 1.
  const definition = 'what does the request timeout do?';
  assert.equal(queryIntent(definition), 'definition');
  assert.deepEqual(rerank(definition, cands, undefined, DEFAULT_RERANK_WEIGHTS).map((x) => x.chunk_id), ['code', 'pyproject', 'glue']);
});
