/**
 * How many texts one embedding send may carry so that both its input (the texts) and its result (the vectors,
 * base64 Float32) stay well under Temporal's 2 MB payload limit: the sweep's sends travel through the workflow
 * to an embed worker that may be on another machine, and come back the same way (no shared folder).
 */

/** Bytes of texts per send: half of Temporal's payload limit, leaving room for the JSON around them. */
export const MAX_SEND_TEXT_BYTES = 1_000_000;
/** Bytes of base64 vectors per send result. */
export const MAX_SEND_VECTOR_BYTES = 1_000_000;

/** Base64 bytes of one vector of `dims` float32 components. */
export const vectorWireBytes = (dims: number) => Math.ceil((dims * 4) / 3) * 4;

/**
 * The longest prefix of `textBytes` (UTF-8 sizes, in send order) that fits both limits; at least one text, so
 * a single oversized text still goes (it alone is far from 2 MB: a provider's input limit is far below).
 */
export function textsPerSend(textBytes: readonly number[], dims: number, limits = { text: MAX_SEND_TEXT_BYTES, vector: MAX_SEND_VECTOR_BYTES }): number {
  const byVectors = Math.max(1, Math.floor(limits.vector / vectorWireBytes(Math.max(1, dims))));
  let bytes = 0;
  let n = 0;
  for (const b of textBytes) {
    if (n >= byVectors || (n > 0 && bytes + b > limits.text)) break;
    bytes += b;
    n++;
  }
  return n;
}
