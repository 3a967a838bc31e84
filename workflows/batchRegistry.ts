/**
 * `generate registry --batch`: phase 1 through the provider's batch API. Round 1 asks every domain in one batch;
 * a domain whose answer did not parse (or whose request failed or expired) is asked again in the next round, with
 * the parse error as feedback and the names accepted so far as taken (at most --max-attempts answers per domain).
 * Unlike the real-time path, the domains of one round do not see each other's names: deduplication (exact names
 * and near-duplicate queries, as always) removes what collides. Kill safety as in batchBenchmark.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BatchActivities, RoundInput } from '../activities/batch/batchActivities.ts';
import type { DefaultActivities } from '../activities/generation/defaultActivities.ts';
import { activityOptions, llmActivityOptions } from '../temporal.config.ts';
import { runBatchRound } from './batchRound.ts';
import type { GenerateRegistryResult } from './generateRegistry.ts';
import type { GenerateRegistryInput } from './generationTypes.ts';

export interface BatchRegistryInput extends GenerateRegistryInput {
  pollFirstMs?: number;
  pollMaxMs?: number;
}

export async function batchRegistry(input: BatchRegistryInput): Promise<GenerateRegistryResult & { rounds: number }> {
  // Submitting, polling and ingesting write the run's ledger and batch records: the coordinator's (the default
  // queue), with the llm class's timeouts; the work itself is at the provider, so no llm worker is needed.
  const batch = proxyActivities<BatchActivities>({ ...llmActivityOptions(input.queues, input.providerPatienceMs ?? 600_000, input.activityOverrides?.llm), taskQueue: input.queues.default });
  const def = proxyActivities<DefaultActivities>(activityOptions('default', input.queues, input.activityOverrides?.default));
  const base = (round: number): RoundInput => ({
    runId: input.runId, runDir: input.runDir, round, registryPhase: { domains: input.domains, perDomain: input.perDomain },
    settings: input.settings, promptId: input.promptId, maxAttempts: input.maxAttempts, budget: input.budget,
  });
  // Each domain needs at most maxAttempts answers and maxAttempts failed requests per answer: a hard stop.
  const lastRound = input.maxAttempts * (input.maxAttempts + 1) + 1;
  let rounds = 0;
  for (let round = 1; round <= lastRound; round++) {
    const sub = await runBatchRound(batch, base(round), { firstMs: input.pollFirstMs, maxMs: input.pollMaxMs });
    const judged = await batch.judgeRegistryAnswers({ runDir: input.runDir, runId: input.runId });
    if (!sub.batch_id && judged.judged === 0) break;
    rounds = round;
  }
  const { triples, failed_domains } = await batch.registryTriples({ runDir: input.runDir, runId: input.runId, domains: input.domains });
  const written = await def.writeRegistry({ runDir: input.runDir, triples, nearDuplicateThreshold: input.nearDuplicateThreshold });
  return { entries: written.entries, dropped: written.dropped, failed_domains, reconciled_lost_calls: 0, rounds };
}
