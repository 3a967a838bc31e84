import type { EmbeddingConfig, EmbeddingSide } from '../../schemas/embeddingConfig.ts';

export type Side = 'query' | 'document';

/** The exact text sent to the provider for one input: the side's template with `{text}` filled in. */
export function prepareText(side: EmbeddingSide, text: string): string {
  // split/join rather than String.replace: a `$&` or `$1` in user text must not be expanded.
  const [before, after] = side.template.split('{text}');
  return before + text + after;
}

export function sideOf(config: EmbeddingConfig, side: Side): EmbeddingSide {
  return side === 'query' ? config.query : config.document;
}

/**
 * Everything besides the text that changes the vector a provider returns. It is part of the cache key, so
 * editing a configuration (model, revision, task type, dimensions) under the same config_id never serves
 * stale vectors. The template is not here: it is already inside the text sent, which is hashed.
 */
export function invocationFingerprint(config: EmbeddingConfig, side: Side): string {
  const s = sideOf(config, side);
  return JSON.stringify([
    config.provider,
    config.model,
    config.model_revision,
    config.output_dimensionality,
    config.dimensions,
    config.normalize,
    s.task_type,
    config.local?.model_dir ?? null,
    config.local?.pooling ?? null,
    config.local?.dtype ?? null,
    // Appended only when set, so every fingerprint written before the field existed (and the caches keyed by it) stays valid.
    ...(config.output_dtype ? [config.output_dtype] : []),
  ]);
}
