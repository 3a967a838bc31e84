/** Shared set-up for the generation workflow tests: a registry file, the workflow input, and ledger checks. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryEntry } from '../../core/generation/types.ts';
import { PROVIDER_RETRY, LOCAL_RETRY, type TaskQueues } from '../../temporal.config.ts';
import type { BuildBenchmarkInput } from '../../workflows/generationTypes.ts';

export const DOMAINS10 = ['bit_manipulation', 'collections', 'data_transformation', 'date_time', 'geometry', 'math_numerical', 'sorting_searching', 'state_machines', 'string_processing', 'validation'];

/** n entries e_0001.. with distinct names (the fake server builds each entry's code from its name). */
export function writeRegistry(runDir: string, n: number, namePrefix = 'window_total'): RegistryEntry[] {
  const entries = Array.from({ length: n }, (_, i) => {
    const id = `e_${String(i + 1).padStart(4, '0')}`;
    const domain = DOMAINS10[i % DOMAINS10.length];
    return { entry_id: id, function_name: `${namePrefix}_${domain}_${i + 1}`, query: `Sum the first n items of a list, plus a fixed offset (${domain} #${i + 1}).`, domain };
  });
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, 'registry.jsonl'), entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return entries;
}

/** Short retry intervals and heartbeat timeouts: the same code paths, on a test's time scale. */
export const FAST = {
  llm: { heartbeatTimeout: '4 seconds', retry: { ...PROVIDER_RETRY, initialInterval: '100 milliseconds', maximumInterval: '1 second' } },
  exec: { heartbeatTimeout: '6 seconds', retry: { ...LOCAL_RETRY, initialInterval: '100 milliseconds' } },
  default: { startToCloseTimeout: '5 seconds', retry: { ...LOCAL_RETRY, initialInterval: '100 milliseconds' } },
};

export function benchmarkInput(runId: string, runDir: string, queues: TaskQueues, over: Partial<BuildBenchmarkInput> = {}): BuildBenchmarkInput {
  return {
    runId,
    runDir,
    source: { kind: 'registry', path: join(runDir, 'registry.jsonl') },
    generator: { kind: 'llm', settings: { provider: 'openai', model: 'gpt-5.4', endpoint: 'responses', reasoning_effort: 'high', max_output_tokens: 16000 }, promptId: 'entry.v1' },
    maxAttempts: 3,
    profile: 'default',
    queues,
    concurrency: 4,
    pageSize: 8,
    manifest: { test: true },
    activityOverrides: FAST,
    ...over,
  };
}
