/**
 * Which task queues this machine can serve, from doctor's other checks: what an operator asks on a worker
 * machine (docs/pipeline.md "On a Temporal cluster"). Each queue needs only what its activities use; nothing
 * here needs a folder shared with another machine.
 */
import { connectClient, describeCluster, type ClusterSettings } from '../../infra/temporal/cluster.ts';
import type { Check } from './checks.ts';

const passing = (checks: readonly Check[], name: string) => checks.some((c) => c.name === name && c.status !== 'fail');
const failing = (checks: readonly Check[], name: string) => checks.find((c) => c.name === name && c.status === 'fail');

/**
 * One line per queue: ok with what it will serve, or fail with what it lacks. `runnable`: the embedding
 * configurations that can run here (besides BM25); `generationKeys`: the LLM keys that are set.
 */
export function queueChecks(checks: readonly Check[], runnable: readonly string[], generationKeys: readonly string[]): Check[] {
  const lacks = (names: string[]) => names.map((n) => failing(checks, n)).filter((c): c is Check => !!c).map((c) => `${c.name}: ${c.detail}`);
  const python = lacks(['python']);
  const exec = lacks(['python', 'fork server']);
  return [
    python.length
      ? { area: 'queues', name: 'default', status: 'fail', detail: `workflows only; lacks ${python.join('; ')} (the run's coordinator builds and scores with it)`, fix: 'install Python >= 3.10, or set EXECRETRIEVAL_PYTHON' }
      : { area: 'queues', name: 'default', status: 'ok', detail: 'workflows, and a run\'s coordinator (build attempts, scoring, the report)' },
    exec.length
      ? { area: 'queues', name: 'exec', status: 'fail', detail: `lacks ${exec.join('; ')}`, fix: 'execretrieval bootstrap' }
      : { area: 'queues', name: 'exec', status: 'ok', detail: `sandboxed executions${passing(checks, 'layers') ? ` (${checks.find((c) => c.name === 'layers')!.detail.split(';')[0]})` : ''}` },
    runnable.length
      ? { area: 'queues', name: 'embed', status: 'ok', detail: `${runnable.length} embedding configuration(s): ${runnable.slice(0, 4).join(', ')}${runnable.length > 4 ? ', …' : ''}` }
      : { area: 'queues', name: 'embed', status: 'warn', detail: 'lacks every embedding configuration (no local model, key or server here)', fix: 'execretrieval bootstrap for the local models, or set a provider key / EXECRETRIEVAL_EMBED_BASE_URL' },
    generationKeys.length
      ? { area: 'queues', name: 'llm', status: 'ok', detail: `generation with ${generationKeys.join(', ')}` }
      : { area: 'queues', name: 'llm', status: 'warn', detail: 'lacks a generation key (`generate` only; `run` does not use this queue)', fix: 'export OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY' },
  ];
}

/**
 * With a cluster configured (a worker machine, or runs on a shared cluster): what it connected to, with which
 * credentials from where, or why it could not (a refused certificate or key, an unreachable address).
 */
export async function clusterCheck(s: ClusterSettings): Promise<Check> {
  try {
    const connection = await connectClient(s);
    const info = await connection.workflowService.getSystemInfo({}).catch(() => null);
    await connection.close().catch(() => undefined);
    return { area: 'temporal', name: 'cluster', status: 'ok', detail: `connected to ${describeCluster(s)}${info?.serverVersion ? `; server ${info.serverVersion}` : ''}; no local server is started` };
  } catch (e) {
    return { area: 'temporal', name: 'cluster', status: 'fail', detail: (e as Error).message, fix: 'check the address, namespace and credentials (temporal.toml profile or TEMPORAL_* variables) and the network path to the cluster' };
  }
}
