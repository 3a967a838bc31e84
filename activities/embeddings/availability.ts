import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import type { ProviderEnv } from './types.ts';

export interface Availability {
  ok: boolean;
  /** What is missing, or what it will use. */
  detail: string;
}

const DEFAULT_KEY_ENV: Partial<Record<EmbeddingConfig['provider'], string>> = { openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY', mistral: 'MISTRAL_API_KEY', cohere: 'COHERE_API_KEY' };
const LOCAL_FILES: Partial<Record<EmbeddingConfig['provider'], string[]>> = {
  'local-onnx': ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
  'local-static': ['config.json', 'tokenizer.json', 'model.safetensors'],
};

/**
 * Can this configuration run here, without loading anything or calling anyone: API key set, server URL set,
 * weights present. Mirrors the checks the factories make (they throw ProviderUnavailableError on the same).
 */
export function availability(config: EmbeddingConfig, penv: ProviderEnv): Availability {
  switch (config.provider) {
    case 'bm25':
      return { ok: true, detail: 'lexical, built in' };
    case 'openai':
    case 'gemini':
    case 'mistral':
    case 'cohere': {
      const keyEnv = config.api_key_env ?? DEFAULT_KEY_ENV[config.provider]!;
      const has = !!penv.env[keyEnv] || (keyEnv === 'GEMINI_API_KEY' && !!penv.env.GOOGLE_API_KEY);
      return has ? { ok: true, detail: `${keyEnv} set` } : { ok: false, detail: `no API key: set ${keyEnv}` };
    }
    case 'openai-compatible': {
      const url = (config.base_url_env ? penv.env[config.base_url_env] : undefined) ?? config.base_url;
      return url ? { ok: true, detail: `server ${url}` } : { ok: false, detail: `no server: set ${config.base_url_env ?? 'base_url'}` };
    }
    case 'local-onnx':
    case 'local-static': {
      const dir = join(penv.modelRoot, config.local!.model_dir);
      const files = [...LOCAL_FILES[config.provider]!, ...(config.provider === 'local-onnx' ? [join('onnx', config.local!.dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx')] : [])];
      const missing = files.filter((f) => !existsSync(join(dir, f)));
      return missing.length ? { ok: false, detail: `weights missing in ${dir}: ${missing.join(', ')} (run: node infra/bootstrap.mjs)` } : { ok: true, detail: `weights in ${dir}` };
    }
  }
}
