/**
 * Phase 1 of the paper's pipeline: ask an LLM for (function_name, query, domain) triples per domain, then
 * deduplicate exact names and near-duplicate queries across all domains and write registry.jsonl (no
 * implementations: the model that later writes code cannot collude with itself on task choice). Domains are
 * asked one after another so each prompt can list the names already taken.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { DefaultActivities } from '../activities/generation/defaultActivities.ts';
import type { Dropped } from '../core/generation/dedup.ts';
import type { RegistryEntry } from '../core/generation/types.ts';
import { activityOptions } from '../temporal.config.ts';
import { DEFAULT_PROVIDER_PATIENCE_MS } from '../core/generation/patience.ts';
import type { GenerateRegistryInput } from './generationTypes.ts';
import { generationCalls } from './llmCallPorts.ts';

export interface GenerateRegistryResult {
  entries: number;
  dropped: Dropped[];
  /** Domains whose every attempt failed to parse (their last error). */
  failed_domains: { domain: string; error: string }[];
  /** Calls an earlier, dead run of this phase left `started`, now `lost` (the audit bounds their cost). */
  reconciled_lost_calls: number;
}

export async function generateRegistry(input: GenerateRegistryInput): Promise<GenerateRegistryResult> {
  const patience = input.providerPatienceMs ?? DEFAULT_PROVIDER_PATIENCE_MS;
  const calls = generationCalls({ queues: input.queues, patienceMs: patience, overrides: input.activityOverrides, budget: input.budget });
  const def = proxyActivities<DefaultActivities>(activityOptions('default', input.queues, input.activityOverrides?.default));
  const triples: Omit<RegistryEntry, 'entry_id'>[] = [];
  const failed: { domain: string; error: string }[] = [];
  // Calls a dead earlier run of this phase left in flight: lost (answered ones are reused from the ledger below).
  const reconciled = await def.reconcileRegistryCalls({ runDir: input.runDir, runId: input.runId });
  for (const domain of input.domains) {
    let lastError = '';
    let done = false;
    for (let n = 1; n <= input.maxAttempts && !done; n++) {
      const r = await calls.registry({
        runId: input.runId, runDir: input.runDir, attemptNo: n, settings: input.settings, promptId: input.promptId,
        request: {
          kind: 'registry', domain, count: input.perDomain, takenNames: triples.map((t) => t.function_name),
          feedback: lastError ? { previous_attempt: n - 1, reasons: [lastError] } : undefined,
        },
      });
      if (r.ok) {
        triples.push(...r.triples);
        done = true;
      } else lastError = r.error;
    }
    if (!done) failed.push({ domain, error: lastError });
  }
  const written = await def.writeRegistry({ runDir: input.runDir, triples, nearDuplicateThreshold: input.nearDuplicateThreshold });
  return { entries: written.entries, dropped: written.dropped, failed_domains: failed, reconciled_lost_calls: reconciled };
}
