import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import type { EmbeddingConfig } from '../../../schemas/embeddingConfig.ts';
import { l2Normalize } from '../../../core/embeddings/vectors.ts';
import { readSafetensors } from '../safetensors.ts';
import { requireLocalModel } from './localModel.ts';
import { ProviderUnavailableError, type EmbeddingProvider, type ProviderEnv } from '../types.ts';

env.allowRemoteModels = false;

/**
 * Static (Model2Vec-style) embeddings: a text's vector is the mean over its tokens of
 * `weights[token] · embeddings[mapping[token]]`, L2-normalised when the model's config says so.
 * That is Model2Vec's vocabulary-quantised encoder (token → one of k shared rows, scaled per token); a test
 * checks it against vectors the package's own Rust encoder produced. Hand-written because the npm side has
 * no Model2Vec runtime; it is a table lookup and a mean.
 */
export async function createLocalStaticProvider(config: EmbeddingConfig, penv: ProviderEnv): Promise<EmbeddingProvider> {
  const dir = requireLocalModel(config, penv);
  env.localModelPath = penv.modelRoot;
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(config.local!.model_dir, { local_files_only: true });
  const modelCfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { normalize?: boolean };
  const t = readSafetensors(join(dir, 'model.safetensors'));
  const emb = t.get('embeddings');
  if (!emb || emb.shape.length !== 2) throw new ProviderUnavailableError(config.config_id, `${dir}/model.safetensors: no 2-d "embeddings" tensor`);
  const [rows, dim] = emb.shape;
  const vocab = t.get('weights')?.shape[0] ?? rows;
  const table = Float32Array.from(emb.data as ArrayLike<number>);
  const mapping = t.get('mapping')?.data as BigInt64Array | undefined;
  const weights = t.get('weights')?.data as Float32Array | undefined;
  const normalize = modelCfg.normalize ?? config.normalize;

  return {
    async embed(texts) {
      let tokens = 0;
      const vectors = texts.map((text) => {
        const ids = tokenizer.encode(text, { add_special_tokens: false });
        tokens += ids.length;
        const acc = new Float64Array(dim);
        for (const id of ids) {
          if (id < 0 || id >= vocab) continue;
          const row = mapping ? Number(mapping[id]) : id;
          const w = weights ? weights[id] : 1;
          for (let j = 0; j < dim; j++) acc[j] += w * table[row * dim + j];
        }
        const v = new Float32Array(dim);
        if (ids.length) for (let j = 0; j < dim; j++) v[j] = acc[j] / ids.length;
        return normalize ? l2Normalize(v) : v;
      });
      return { vectors, tokens };
    },
  };
}
