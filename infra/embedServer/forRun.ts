import { configuredBaseUrl } from '../../activities/embeddings/availability.ts';
import type { ProviderEnv } from '../../activities/embeddings/types.ts';
import type { RegistryEntry } from '../../core/embeddings/registry.ts';
import { servableModelNames, servableModels } from './servedModel.ts';
import { startEmbedServer } from './server.ts';

/** What `run` serves itself: the models of the named configurations, and the variables that point them at it. */
export interface RunServerPlan {
  /** Registry model names the server must hold (e.g. intfloat/multilingual-e5-small). */
  models: string[];
  /** The configurations' `base_url_env`s, none of them set. */
  vars: string[];
  configIds: string[];
}

/**
 * The configurations named explicitly (`--configs`) whose only route here is this checkout's own server: an
 * openai-compatible entry with no server configured whose model `serve-embeddings` holds (multilingual-e5-small).
 * Null when there are none, and always for the default set: what `npm start` runs is never widened by this.
 */
export function runServerPlan(entries: readonly RegistryEntry[], configIds: readonly string[] | null, penv: ProviderEnv): RunServerPlan | null {
  if (!configIds) return null;
  const served = servableModelNames(entries, penv);
  const plan: RunServerPlan = { models: [], vars: [], configIds: [] };
  for (const id of configIds) {
    const c = entries.find((e) => e.config.config_id === id)?.config;
    if (!c || c.provider !== 'openai-compatible' || !c.base_url_env || configuredBaseUrl(c, penv) || !served.has(c.model)) continue;
    plan.configIds.push(id);
    if (!plan.models.includes(c.model)) plan.models.push(c.model);
    if (!plan.vars.includes(c.base_url_env)) plan.vars.push(c.base_url_env);
  }
  return plan.configIds.length ? plan : null;
}

/**
 * Runs `fn` with the local embedding server up (a free port, 127.0.0.1, only the planned models) and the plan's
 * variables set to it in `env` (the workers in this process read process.env when a sweep plans), then stops the
 * server and restores `env`. The configurations then go through the same openai-compatible path as with a server
 * the user started; nothing in the sweep knows the difference.
 */
export async function withRunServer<T>(plan: RunServerPlan, entries: readonly RegistryEntry[], penv: ProviderEnv & { env: NodeJS.ProcessEnv }, log: (m: string) => void, fn: () => Promise<T>): Promise<T> {
  const { models } = servableModels(entries, penv, plan.models, log);
  // Not its per-request lines: the run prints its own progress.
  const server = await startEmbedServer({ host: '127.0.0.1', port: 0, models });
  const saved = plan.vars.map((v) => [v, penv.env[v]] as const);
  for (const v of plan.vars) penv.env[v] = `${server.url}/v1`;
  log(`${plan.configIds.join(', ')}: no server set, so this run serves ${plan.models.join(', ')} itself at ${server.url}/v1 (as \`execretrieval serve-embeddings\` would)`);
  try {
    return await fn();
  } finally {
    for (const [v, old] of saved) {
      if (old === undefined) delete penv.env[v];
      else penv.env[v] = old;
    }
    await server.close();
  }
}
