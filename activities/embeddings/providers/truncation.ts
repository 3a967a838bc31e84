import type { PreTrainedTokenizer, Tensor } from '@huggingface/transformers';

/**
 * Tokenise a batch the way sentence-transformers does: a text longer than `maxLength` keeps its closing special
 * token. transformers.js truncates the sequence AFTER adding [CLS] ... [SEP], so a cut text ends in a word piece
 * and its [SEP] is lost (vectors then differ from the Python reference by up to 1.5e-2); Hugging Face's tokenizers
 * (what sentence-transformers runs) cut the content to maxLength minus the specials and then add them. For a cut
 * row the two differ only in the last position, content[maxLength - 2] instead of [SEP], so that position is set
 * back to the closing token: [CLS] + content[0, maxLength - 2) + [SEP], as in Python.
 *
 * A row counts as cut when it fills maxLength and does not end in the closing token (a text that fits exactly
 * already ends in it). The closing token is the last id the tokenizer adds to an empty text; a tokenizer that
 * adds none at the end (length < 2) needs no repair.
 */
export function tokenizeTruncated(tokenizer: PreTrainedTokenizer, texts: readonly string[], maxLength: number | undefined) {
  const inputs = tokenizer([...texts], { padding: true, truncation: true, max_length: maxLength });
  if (maxLength === undefined) return inputs;
  const specials = tokenizer.encode('');
  if (specials.length < 2) return inputs;
  const close = BigInt(specials[specials.length - 1]);
  const ids = inputs.input_ids as Tensor;
  const mask = (inputs.attention_mask as Tensor).data as BigInt64Array;
  const data = ids.data as BigInt64Array;
  const width = ids.dims[1];
  for (let r = 0; r < ids.dims[0]; r++) {
    let len = 0;
    for (let j = 0; j < width; j++) len += Number(mask[r * width + j]);
    const last = r * width + len - 1;
    if (len === maxLength && data[last] !== close) data[last] = close;
  }
  return inputs;
}
