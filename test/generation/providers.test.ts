import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fake-provider/llm-server.ts';
import { callLlm, providerEnv } from '../../activities/llm/providers.ts';
import { ProviderError } from '../../activities/llm/errors.ts';
import { LlmSettings } from '../../core/generation/types.ts';
import { parseEntryResponse } from '../../core/generation/parse.ts';

let fake: FakeLlmServer;
before(async () => {
  fake = await startFakeLlmServer();
});
after(() => fake?.close());

const CASES = [
  { provider: 'openai', endpoint: 'chat.completions', model: 'gpt-5.4', reasoning_effort: 'high' },
  { provider: 'openai', endpoint: 'responses', model: 'gpt-5.4', reasoning_effort: 'high' },
  { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4-6', reasoning_effort: 'low' },
  { provider: 'gemini', endpoint: 'generateContent', model: 'gemini-2.5-pro', reasoning_effort: 'low' },
] as const;

const messages = (name: string) => ({ system: 'sys', user: `Write one benchmark entry.\n\nFunction name: ${name}\n` });

for (const c of CASES) {
  test(`${c.provider}/${c.endpoint}: the real SDK gets text and billed usage, and errors are classified`, async () => {
    const s = LlmSettings.parse(c);
    const env = providerEnv(c.provider, fake.env);
    const name = `fn_${c.provider}_${c.endpoint.replace('.', '_')}`;
    const before = fake.log.length;
    const reply = await callLlm(s, messages(name), env);
    const logged = fake.log[before];
    assert.equal(logged.subject, name);
    assert.equal(logged.endpoint, c.endpoint);
    // Usage as normalised by us must equal the usage the server billed (output includes reasoning).
    assert.deepEqual(reply.usage, logged.usage);
    const parsed = parseEntryResponse(reply.text, { entry_id: 'e', function_name: name, query: 'q', domain: 'd' });
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.equal(parsed.value.distractors.length, 4);

    fake.script(name, ['429', '500', '400']);
    for (const [status, retryable] of [[429, true], [500, true], [400, false]] as const) {
      const err = await callLlm(s, messages(name), env).then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ProviderError, String(err));
      assert.equal(err.httpStatus, status);
      assert.equal(err.retryable, retryable, err.message);
      // The fake's 429 carries `retry-after: 1`; the SDKs that expose headers pass it on (Gemini's ApiError has none).
      if (status === 429 && c.provider !== 'gemini') assert.equal(err.retryAfterMs, 1000);
    }
  });
}

test('a missing API key is refused before any request, naming the variable', () => {
  assert.throws(() => providerEnv('anthropic', {}), /ANTHROPIC_API_KEY/);
});

test('an unreachable server is a retryable error without an HTTP status', async () => {
  const s = LlmSettings.parse(CASES[0]);
  const err = await callLlm(s, messages('x'), { apiKey: 'k', baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 2000 }).catch((e) => e);
  assert.ok(err instanceof ProviderError);
  assert.equal(err.retryable, true);
  assert.equal(err.httpStatus, null);
});

test('retryAfterMs reads retry-after-ms, then retry-after seconds, capped; ignores dates', async () => {
  const { retryAfterMs } = await import('../../activities/llm/errors.ts');
  assert.equal(retryAfterMs({ headers: new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }) }), 250);
  assert.equal(retryAfterMs({ headers: { 'retry-after': '3' } }), 3000);
  assert.equal(retryAfterMs({ headers: { 'retry-after': '3600' } }), 120_000);
  assert.equal(retryAfterMs({ headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' } }), null);
  assert.equal(retryAfterMs(new Error('x')), null);
});
