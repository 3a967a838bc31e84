import type { ProviderEnv } from './types.ts';

/**
 * One documented variable per hosted embedding provider for its base URL (a proxy, a gateway, a compatible
 * server), read from the provider environment rather than left to each SDK: @google/genai reads only
 * GOOGLE_GEMINI_BASE_URL, and Mistral's and Cohere's SDKs read none, so the README's GEMINI_BASE_URL was
 * ignored by embeddings and Mistral and Cohere could only be redirected by a registry file.
 * A configuration's own `base_url_env` / `base_url` still wins (availability.ts configuredBaseUrl).
 */
export const BASE_URL_VARS = {
  openai: ['OPENAI_BASE_URL'],
  gemini: ['GEMINI_BASE_URL', 'GOOGLE_GEMINI_BASE_URL'],
  mistral: ['MISTRAL_BASE_URL'],
  cohere: ['COHERE_BASE_URL'],
} as const;
export type HostedProvider = keyof typeof BASE_URL_VARS;

/** The base URL for `provider`: the injected one (tests), else the first of its variables that is set, else undefined (the SDK's default). */
export function providerBaseUrl(provider: HostedProvider, penv: Pick<ProviderEnv, 'env' | 'baseUrls'>): string | undefined {
  const injected = penv.baseUrls?.[provider];
  if (injected) return injected;
  for (const v of BASE_URL_VARS[provider]) if (penv.env[v]) return penv.env[v];
  return undefined;
}
