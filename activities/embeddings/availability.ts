import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import type { ProviderEnv } from './types.ts';
import type { ServerListing } from './serverModels.ts';

export interface Availability {
  ok: boolean;
  /** What is missing, or what it will use. */
  detail: string;
}

/*
 * The facts "can this provider run here" rests on, in one place: `availability` (what `configs` and the sweep's
 * plan report) and the provider factories (which throw ProviderUnavailableError) both read them, so the two
 * cannot drift apart.
 */

const DEFAULT_KEY_ENV: Partial<Record<EmbeddingConfig['provider'], string>> = { openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY', mistral: 'MISTRAL_API_KEY', cohere: 'COHERE_API_KEY', voyage: 'VOYAGE_API_KEY', jina: 'JINA_API_KEY' };

/** The variable holding the configuration's API key (its `api_key_env`, else the provider's own); null when none is named. */
export function apiKeyEnv(config: EmbeddingConfig): string | null {
  return config.api_key_env ?? DEFAULT_KEY_ENV[config.provider] ?? null;
}

/** The API key, if set (non-empty). GEMINI_API_KEY falls back to GOOGLE_API_KEY, as Google's SDKs do. */
export function apiKeyOf(config: EmbeddingConfig, penv: ProviderEnv): string | undefined {
  const keyEnv = apiKeyEnv(config);
  if (!keyEnv) return undefined;
  return penv.env[keyEnv] || (keyEnv === 'GEMINI_API_KEY' ? penv.env.GOOGLE_API_KEY : undefined) || undefined;
}

/** The server the configuration names (`base_url_env`'s value, else `base_url`); undefined: the provider's default. */
export function configuredBaseUrl(config: EmbeddingConfig, penv: ProviderEnv): string | undefined {
  return (config.base_url_env ? penv.env[config.base_url_env] : undefined) ?? config.base_url ?? undefined;
}

/** The local model's folder under the model root. */
export function localModelDir(config: EmbeddingConfig, penv: ProviderEnv): string {
  return join(penv.modelRoot, config.local!.model_dir);
}

/**
 * Why bootstrap could not install the model in `dir` (its package could not be downloaded, a pinned hash did not
 * match), as infra/bootstrap/20-models.mjs recorded it in `<dir>.unavailable`; null when it recorded nothing.
 */
export function bootstrapReason(dir: string): string | null {
  const file = `${dir}.unavailable`;
  if (!existsSync(file)) return null;
  return readFileSync(file, 'utf8').trim() || null;
}

/** Files a local model's folder must hold before its factory can load it (relative to the folder). */
export function localModelFiles(config: EmbeddingConfig): string[] {
  if (config.provider === 'local-splade') return ['config.json', 'tokenizer.json', 'tokenizer_config.json', join('onnx', 'model.onnx')];
  if (config.provider === 'local-onnx') {
    return ['config.json', 'tokenizer.json', 'tokenizer_config.json', join('onnx', config.local!.dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx')];
  }
  if (config.provider === 'local-static') return ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
  return [];
}

/** Whether a listed server holds `model`. Ollama lists `name:latest` and answers to the bare name too. */
export function serverHolds(models: readonly string[], model: string): boolean {
  return models.some((m) => m === model || m === `${model}:latest`);
}

/**
 * An openai-compatible configuration against the server its URL names: what the server listed decides (a model it
 * does not hold would only 404), nothing listening there is unavailable too; a server that cannot list (or was
 * not asked: no listing given) is tried.
 */
function serverAvailability(model: string, url: string, listing: ServerListing | undefined): Availability {
  if (!listing || listing.state === 'unlisted') return { ok: true, detail: `server ${url}${listing ? ` (it lists no models: ${listing.detail})` : ''}` };
  if (listing.state === 'no_answer') return { ok: false, detail: `server ${url} does not answer (${listing.detail})` };
  if (serverHolds(listing.models, model)) return { ok: true, detail: `server ${url} serves ${model}` };
  const shown = listing.models.slice(0, 4).join(', ') + (listing.models.length > 4 ? `, … (${listing.models.length})` : '');
  return { ok: false, detail: `server ${url} does not serve ${model} (GET /models lists: ${shown || 'nothing'})` };
}

/**
 * Can this configuration run here, without loading anything or calling anyone: API key set, server URL set (and,
 * when `penv.servers` has the server's listing, the model among what it serves: see serverModels.ts), weights present. The factories check the same facts (above) and throw ProviderUnavailableError on them.
 */
export function availability(config: EmbeddingConfig, penv: ProviderEnv): Availability {
  switch (config.provider) {
    case 'bm25':
      return { ok: true, detail: 'lexical, built in' };
    case 'openai':
    case 'gemini':
    case 'mistral':
    case 'cohere':
    case 'voyage':
    case 'jina': {
      const keyEnv = apiKeyEnv(config)!;
      return apiKeyOf(config, penv) ? { ok: true, detail: `${keyEnv} set` } : { ok: false, detail: `no API key: set ${keyEnv}` };
    }
    case 'openai-compatible': {
      const url = configuredBaseUrl(config, penv);
      if (!url) return { ok: false, detail: `no server: set ${config.base_url_env ?? 'base_url'}` };
      return serverAvailability(config.model, url, penv.servers?.get(url));
    }
    case 'local-onnx':
    case 'local-static':
    case 'local-splade': {
      const dir = localModelDir(config, penv);
      const missing = localModelFiles(config).filter((f) => !existsSync(join(dir, f)));
      if (!missing.length) return { ok: true, detail: `weights in ${dir}` };
      const why = bootstrapReason(dir);
      return { ok: false, detail: why ? `package not installed: ${why}` : `weights missing in ${dir}: ${missing.join(', ')} (run: execretrieval bootstrap --all-models)` };
    }
  }
}
