import { AutoModel, AutoTokenizer, env, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { packTopTerms } from '../../../core/ranking/sparse.ts';
import { requireLocalModel, fedTokens, paddedWidths, IN_PROCESS_SESSION_OPTIONS } from './localModel.ts';
import { ProviderUnavailableError, type EmbeddingProvider, type ProviderEnv } from '../types.ts';
import { tokenizeTruncated } from './truncation.ts';

env.allowRemoteModels = false;

/**
 * Learned-sparse encoder (SPLADE) in-process: the tokenizer and the ONNX session as for local-onnx, but the graph
 * (infra/models/export_splade_onnx.py) ends in SPLADE's pooling, max over positions of log(1 + relu(MLM logits)),
 * one weight per vocabulary term. Each text's non-zero terms are packed strongest first into `dimensions / 2`
 * (term id, weight) pairs (core/ranking/sparse.ts), so vectors go through the same cache and matrices as dense
 * ones and the scoring step ranks them by sparse dot product. Not normalised: SPLADE scores are raw dot products.
 */
export async function createLocalSpladeProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const dir = requireLocalModel(config, penv);
  env.localModelPath = penv.modelRoot;
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(config.local!.model_dir, { local_files_only: true });
  const model: PreTrainedModel = await AutoModel.from_pretrained(config.local!.model_dir, { dtype: 'fp32', local_files_only: true, session_options: IN_PROCESS_SESSION_OPTIONS });
  const maxLength = config.max_input_tokens ?? undefined;
  const terms = config.dimensions! / 2;
  let pruned = 0;

  return {
    async embed(texts) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      const inputs = tokenizeTruncated(tokenizer, texts, maxLength);
      const out = (await model(inputs)) as { sparse_weights?: Tensor };
      if (!out.sparse_weights) throw new ProviderUnavailableError(config.config_id, `${dir}/onnx/model.onnx has no sparse_weights output (re-run: execretrieval bootstrap)`);
      const [n, vocab] = out.sparse_weights.dims;
      const data = out.sparse_weights.data as Float32Array;
      const vectors = Array.from({ length: n }, (_, i) => {
        const packed = packTopTerms(data.subarray(i * vocab, (i + 1) * vocab), terms);
        pruned += packed.pruned;
        return packed.row;
      });
      return { vectors, tokens: fedTokens(inputs.attention_mask as Tensor) };
    },
    countTokens(texts) {
      return paddedWidths(tokenizer, texts, maxLength);
    },
    /** Non-zero terms dropped so far because a text had more than dimensions / 2 (for tests and logs). */
    get pruned() {
      return pruned;
    },
    async close() {
      await model.dispose();
    },
  } as EmbeddingProvider & { readonly pruned: number };
}
