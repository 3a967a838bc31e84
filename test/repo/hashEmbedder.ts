import { tokenizeCode } from '../../core/tokenize.ts';
import type { Embedder } from '../../activities/repo/embedder.ts';
import { fnv1a32 } from '../../core/repo/split.ts';

/**
 * A deterministic stand-in for a dense model: hashed bag of code tokens (feature hashing, Weinberger et
 * al. 2009) with a sign bit, L2-normalised. Not semantic, but it ranks by shared vocabulary the way a
 * weak embedder would, and it needs no weights.
 */
export function hashEmbedder(dims = 256): Embedder {
  return {
    info: { config_id: `test-hash-${dims}`, dims },
    embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(dims);
        for (const tok of tokenizeCode(t)) {
          const h = fnv1a32(tok);
          v[h % dims] += h & 0x80000000 ? -1 : 1;
        }
        let n = 0;
        for (const x of v) n += x * x;
        if (n > 0) for (let i = 0; i < dims; i++) v[i] /= Math.sqrt(n);
        return v;
      });
    },
  };
}
