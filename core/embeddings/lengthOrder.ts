/**
 * Shortest first: the order in which to batch texts for a model that pads every batch to its longest text
 * (a local transformer's cost is batch size × longest length; hosted APIs do not care). Returns indices into
 * `lengths`; ties keep input order, so the batches, and therefore the vectors, are deterministic. The caller
 * puts each output back at its index, so what it returns is in input order.
 *
 * One implementation for every path that batches: embedItems (the sweep and the repository index) orders by
 * the provider's own token counts when it has a tokenizer, else by characters; the sweep's activity ranges and
 * embedChunks' groups order by characters (no tokenizer there), which embedItems then refines.
 */
export function lengthOrder(lengths: readonly number[]): number[] {
  return lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
}
