import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tensor } from '@huggingface/transformers';
import type { CorpusRecord } from '../../schemas/benchmark.ts';
import type { EmbeddingConfig } from '../../schemas/embeddingConfig.ts';
import { prepareText } from '../../core/embeddings/prepare.ts';
import { tokenizeTruncated } from '../embeddings/providers/truncation.ts';

/**
 * Twins whose edit the embedder never saw: the model's truncated token ids (the exact input of
 * providers/localOnnx.ts and localSplade.ts, template and [SEP] rule included) are identical for twin and canonical. Exact, with the
 * model's own tokenizer, rather than from the corpus' edit span (UTF-8 byte offsets): no boundary approximation.
 * Only for local transformer configurations with a token limit whose tokenizer is installed; null otherwise
 * (hosted models' tokenizers are not here). Asynchronous only to load @huggingface/transformers when a tokenizer is
 * there to use: importing it costs about a second of start-up, which a BM25-only `score` need not pay.
 */
export async function unseenEdits(config: EmbeddingConfig, corpus: readonly CorpusRecord[], modelRoot: string): Promise<Set<string> | null> {
  // Both in-process transformers tokenise through tokenizeTruncated (localOnnx.ts, localSplade.ts).
  if ((config.provider !== 'local-onnx' && config.provider !== 'local-splade') || !config.max_input_tokens || !config.local) return null;
  const dir = join(modelRoot, config.local.model_dir);
  const files = ['tokenizer.json', 'tokenizer_config.json'].map((f) => join(dir, f));
  if (!files.every(existsSync)) return null;
  const { PreTrainedTokenizer } = await import('@huggingface/transformers');
  // Constructed synchronously from the two files (what AutoTokenizer reads; test/report/analyses.test.ts checks the ids agree).
  const tokenizer = new PreTrainedTokenizer(JSON.parse(readFileSync(files[0], 'utf8')), JSON.parse(readFileSync(files[1], 'utf8')));
  const ids = (code: string): string => {
    const t = tokenizeTruncated(tokenizer, [prepareText(config.document, code)], config.max_input_tokens!);
    return ((t.input_ids as Tensor).data as BigInt64Array).join(',');
  };
  const canonical = new Map<string, string>();
  for (const c of corpus) if (c.is_canonical && c.query_id) canonical.set(c.query_id, ids(c.code));
  const out = new Set<string>();
  for (const c of corpus) {
    if (c.is_canonical || !c.query_id) continue;
    const canon = canonical.get(c.query_id);
    if (canon !== undefined && canon === ids(c.code)) out.add(c.corpus_id);
  }
  return out;
}
