import type { EmbeddingProviderName } from '../../schemas/embeddingConfig.ts';

/**
 * Providers whose model runs inside our own process: no request leaves the machine (nothing to bill, no ledger
 * row) and one batch at a time already uses every core. One list, so a new local provider is local everywhere.
 * Type-only import: workflows use this, and they must not pull in zod.
 */
export const IN_PROCESS_PROVIDERS: readonly EmbeddingProviderName[] = ['local-onnx', 'local-static', 'local-splade'];

export const isInProcess = (provider: EmbeddingProviderName): boolean => IN_PROCESS_PROVIDERS.includes(provider);
