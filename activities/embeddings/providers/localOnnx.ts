import { AutoModel, AutoTokenizer, env, mean_pooling, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { equalWidthGroups } from '../../../core/embeddings/equalWidth.ts';
import { requireLocalModel, fedTokens, paddedWidths, onnxSessionOptions } from './localModel.ts';
import type { EmbeddingProvider, ProviderEnv } from '../types.ts';
import { tokenizeTruncated } from './truncation.ts';

// Never touch the network: a missing model fails at once with a clear message instead of a hub download.
env.allowRemoteModels = false;

/**
 * In-process transformer through @huggingface/transformers (tokenizer, ONNX session on onnxruntime-node,
 * pooling, normalisation), from a model folder that bootstrap installed.
 *
 * Not the `feature-extraction` pipeline: it always truncates at the tokenizer's model_max_length (512 for
 * BERTs) with no way to pass another, while sentence-transformers truncates at the model card's
 * max_seq_length (256 for all-MiniLM-L6-v2). The three calls below are what the pipeline does, plus max_length,
 * with the truncation repaired to keep the final [SEP] as sentence-transformers does (truncation.ts).
 */
export async function createLocalOnnxProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const local = config.local!;
  requireLocalModel(config, penv);
  env.localModelPath = penv.modelRoot;
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(local.model_dir, { local_files_only: true });
  const model: PreTrainedModel = await AutoModel.from_pretrained(local.model_dir, { dtype: local.dtype, local_files_only: true, session_options: onnxSessionOptions(penv) });
  const maxLength = config.max_input_tokens ?? undefined;

  /** One forward pass over texts that all have the same width (no padding). */
  async function run(texts: string[]) {
    const inputs = tokenizeTruncated(tokenizer, texts, maxLength);
    const out = (await model(inputs)) as { last_hidden_state: Tensor };
    let pooled: Tensor = out.last_hidden_state;
    if (local.pooling === 'mean') pooled = mean_pooling(pooled, inputs.attention_mask as Tensor);
    else if (local.pooling === 'cls') pooled = pooled.slice(null, 0);
    if (config.normalize) pooled = pooled.normalize(2, -1);
    const [n, dim] = pooled.dims;
    const data = pooled.data as Float32Array;
    return { vectors: Array.from({ length: n }, (_, i) => data.slice(i * dim, (i + 1) * dim)), tokens: fedTokens(inputs.attention_mask as Tensor) };
  }

  return {
    // A batch runs as one pass per token width: padding costs the model as much as text, and even a
    // length-ordered batch of index heads had 13% padded positions (core/embeddings/equalWidth.ts).
    async embed(texts) {
      const vectors: Float32Array[] = new Array(texts.length);
      let tokens = 0;
      for (const group of equalWidthGroups(paddedWidths(tokenizer, texts, maxLength))) {
        const out = await run(group.map((i) => texts[i]));
        group.forEach((i, j) => (vectors[i] = out.vectors[j]));
        tokens += out.tokens;
      }
      return { vectors, tokens };
    },
    countTokens(texts) {
      return paddedWidths(tokenizer, texts, maxLength);
    },
    async close() {
      await model.dispose();
    },
  };
}
