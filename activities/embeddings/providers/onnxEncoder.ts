import { AutoModel, AutoTokenizer, env, mean_pooling, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { fedTokens } from './localModel.ts';
import { tokenizeTruncated } from './truncation.ts';

// Never touch the network: a missing model fails at once with a clear message instead of a hub download.
env.allowRemoteModels = false;

export interface OnnxEncoder {
  tokenizer: PreTrainedTokenizer;
  /** One forward pass over texts that all have the same width (no padding): one vector per text, and the tokens fed. */
  encode(texts: readonly string[]): Promise<{ vectors: Float32Array[]; tokens: number }>;
  dispose(): Promise<void>;
}

/**
 * The tokenizer, the ONNX session (onnxruntime-node) and the pooling of a local-onnx model, from a model folder
 * that bootstrap installed: the one implementation both the in-process provider and each pool worker
 * (onnxWorker.ts) run, so the two paths cannot drift apart.
 *
 * Not the `feature-extraction` pipeline: it always truncates at the tokenizer's model_max_length (512 for
 * BERTs) with no way to pass another, while sentence-transformers truncates at the model card's
 * max_seq_length (256 for all-MiniLM-L6-v2). The calls below are what the pipeline does, plus max_length,
 * with the truncation repaired to keep the final [SEP] as sentence-transformers does (truncation.ts).
 *
 * `tokenizerOnly`: no session (encode then throws), for a process that only counts tokens while a pool runs the
 * model. `tokenizer`: one already loaded from the same folder, so a process that has one does not parse it again.
 */
export async function loadOnnxEncoder(config: EmbeddingConfig, modelRoot: string, sessionOptions: object, opts: { tokenizerOnly?: boolean; tokenizer?: PreTrainedTokenizer } = {}): Promise<OnnxEncoder> {
  const local = config.local!;
  env.localModelPath = modelRoot;
  const tokenizer: PreTrainedTokenizer = opts.tokenizer ?? (await AutoTokenizer.from_pretrained(local.model_dir, { local_files_only: true }));
  const model: PreTrainedModel | null = opts.tokenizerOnly ? null : await AutoModel.from_pretrained(local.model_dir, { dtype: local.dtype, local_files_only: true, session_options: sessionOptions });
  const maxLength = config.max_input_tokens ?? undefined;
  return {
    tokenizer,
    async encode(texts) {
      if (!model) throw new Error(`${config.config_id}: this encoder was loaded without a session (tokenizerOnly)`);
      const inputs = tokenizeTruncated(tokenizer, texts, maxLength);
      const out = (await model(inputs)) as { last_hidden_state: Tensor };
      let pooled: Tensor = out.last_hidden_state;
      if (local.pooling === 'mean') pooled = mean_pooling(pooled, inputs.attention_mask as Tensor);
      else if (local.pooling === 'cls') pooled = pooled.slice(null, 0);
      if (config.normalize) pooled = pooled.normalize(2, -1);
      const [n, dim] = pooled.dims;
      const data = pooled.data as Float32Array;
      return { vectors: Array.from({ length: n }, (_, i) => data.slice(i * dim, (i + 1) * dim)), tokens: fedTokens(inputs.attention_mask as Tensor) };
    },
    async dispose() {
      await model?.dispose();
    },
  };
}
