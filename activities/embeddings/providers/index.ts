import type { EmbeddingConfig, EmbeddingProviderName } from '../../../schemas/embeddingConfig.ts';
import { ProviderUnavailableError, type EmbeddingProvider, type ProviderEnv, type ProviderFactory } from '../types.ts';
import { createOpenAiProvider } from './openai.ts';
import { createGeminiProvider } from './gemini.ts';
import { createMistralProvider } from './mistral.ts';
import { createLocalOnnxProvider } from './localOnnx.ts';
import { createLocalStaticProvider } from './localStatic.ts';

/** Provider name → factory. A typed map: adding a provider to the schema without a factory fails to compile. */
export const PROVIDERS: Record<Exclude<EmbeddingProviderName, 'bm25'>, ProviderFactory> = {
  openai: createOpenAiProvider,
  'openai-compatible': createOpenAiProvider,
  gemini: createGeminiProvider,
  mistral: createMistralProvider,
  'local-onnx': createLocalOnnxProvider,
  'local-static': createLocalStaticProvider,
};

export async function createProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  if (config.provider === 'bm25') throw new ProviderUnavailableError(config.config_id, 'bm25 has no vectors (it is scored lexically)');
  return PROVIDERS[config.provider](config, penv);
}
