import type { EmbeddingConfig, EmbeddingProviderName } from '../../../schemas/embeddingConfig.ts';
import { ProviderUnavailableError, type EmbeddingProvider, type ProviderEnv, type ProviderFactory } from '../types.ts';

/**
 * Provider name → factory. A typed map: adding a provider to the schema without a factory fails to compile.
 * Each SDK is imported only when a configuration needs it: @huggingface/transformers + onnxruntime alone take
 * seconds to load, which a worker serving only hosted providers (or a fully cached rerun) should not pay.
 */
export const PROVIDERS: Record<Exclude<EmbeddingProviderName, 'bm25'>, ProviderFactory> = {
  openai: async (c, e) => (await import('./openai.ts')).createOpenAiProvider(c, e),
  'openai-compatible': async (c, e) => (await import('./openai.ts')).createOpenAiProvider(c, e),
  gemini: async (c, e) => (await import('./gemini.ts')).createGeminiProvider(c, e),
  mistral: async (c, e) => (await import('./mistral.ts')).createMistralProvider(c, e),
  cohere: async (c, e) => (await import('./cohere.ts')).createCohereProvider(c, e),
  voyage: async (c, e) => (await import('./voyageJina.ts')).createVoyageProvider(c, e),
  jina: async (c, e) => (await import('./voyageJina.ts')).createJinaProvider(c, e),
  'local-onnx': async (c, e) => (await import('./localOnnx.ts')).createLocalOnnxProvider(c, e),
  'local-static': async (c, e) => (await import('./localStatic.ts')).createLocalStaticProvider(c, e),
  'local-splade': async (c, e) => (await import('./localSplade.ts')).createLocalSpladeProvider(c, e),
};

export async function createProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  if (config.provider === 'bm25') throw new ProviderUnavailableError(config.config_id, 'bm25 has no vectors (it is scored lexically)');
  return PROVIDERS[config.provider](config, penv);
}
