/**
 * The activity of the `llm` queue: one request to the provider, nothing else. It needs no file of the run: the
 * prompt and the settings come in its input (built by the coordinator when it reserved the call's ledger row,
 * activities/generation/callReservations.ts), and the answer goes back with its usage for the coordinator to
 * store, price and judge. So an llm worker may run on any machine that has the provider keys.
 *
 * A provider refusal (429, 5xx, 4xx, a broken connection) was sent and is returned as a value: the workflow records
 * it and decides whether to try again (workflows/llmCall.ts). Only a refusal made before sending (no API key on
 * this machine, a setting the provider call cannot express) is thrown, non-retryably, so the workflow releases the
 * reservation. The workflow never lets Temporal retry this activity on its own: a retry must have a row first.
 */
import type { PromptMessages } from '../../core/generation/prompts.ts';
import { LlmSettings } from '../../core/generation/types.ts';
import { InvalidInputError, ProviderError } from '../llm/errors.ts';
import { callLlm, providerEnv } from '../llm/providers.ts';
import type { LlmAnswer } from './callReservations.ts';
import { toTemporalFailure, withHeartbeat } from './temporalErrors.ts';

export interface LlmActivityDeps {
  env: Readonly<Record<string, string | undefined>>;
}

export interface SendLlmInput {
  settings: LlmSettings;
  messages: PromptMessages;
}

export function createLlmActivities(deps: LlmActivityDeps) {
  return {
    async sendLlmRequest(input: SendLlmInput): Promise<LlmAnswer> {
      try {
        return await withHeartbeat(async () => {
          const settings = LlmSettings.parse(input.settings);
          const env = providerEnv(settings.provider, deps.env);
          const t0 = performance.now();
          try {
            const reply = await callLlm(settings, input.messages, env);
            return { ok: true, text: reply.text, usage: reply.usage, model: reply.model, latency_ms: Math.round(performance.now() - t0) };
          } catch (err) {
            // Refused before sending: thrown (no row). Anything else the SDK threw once the request had left is a
            // refusal of unknown kind: recorded, and tried again within the patience.
            if (err instanceof InvalidInputError) throw err;
            const p = err instanceof ProviderError ? err : null;
            return {
              ok: false,
              http_status: p?.httpStatus ?? null,
              error: String((err as Error)?.message ?? err),
              retryable: p ? p.retryable : true,
              retry_after_ms: p?.retryAfterMs ?? null,
              latency_ms: Math.round(performance.now() - t0),
            };
          }
        });
      } catch (err) {
        throw toTemporalFailure(err);
      }
    },
  };
}
export type LlmActivities = ReturnType<typeof createLlmActivities>;
