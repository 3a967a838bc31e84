/**
 * Splits a batch into runs of equal padded width, so a local model pads nothing: a transformer computes every
 * position of a padded batch, masked or not, so a batch of widths 20..60 costs 60 per row. Rows of one width
 * are computed exactly as in any batch (the attention mask is all ones), so the vectors are the ones the padded
 * batch gives (checked bit for bit in test/embeddings/local-models.test.ts).
 *
 * Returns groups of indices into `widths`, each in input order, groups in order of first appearance; every index
 * appears once. Pure: the provider maps the groups back to its rows.
 */
export function equalWidthGroups(widths: readonly number[]): number[][] {
  const byWidth = new Map<number, number[]>();
  widths.forEach((w, i) => {
    const g = byWidth.get(w);
    if (g) g.push(i);
    else byWidth.set(w, [i]);
  });
  return [...byWidth.values()];
}
