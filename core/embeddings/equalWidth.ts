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

/**
 * Equal-width groups cut into tasks for a pool of single-threaded sessions (providers/onnxPool.ts): each task
 * is rows of one width, at most `tokensPerTask` positions (at least one row), so no one long group keeps one
 * session busy while the others idle; tasks come costliest first (rows x width, then width: attention also
 * grows with width), so the last to finish are the cheap ones. Splitting a group changes no vector: a row of
 * one width is computed the same in any batch (test/embeddings/equal-width.test.ts checks each text alone).
 *
 * Returns groups of indices into `widths`, each in input order; every index appears once. Pure.
 */
export function equalWidthTasks(widths: readonly number[], tokensPerTask: number): number[][] {
  const tasks: { rows: number[]; width: number }[] = [];
  for (const group of equalWidthGroups(widths)) {
    const width = widths[group[0]];
    const rows = Math.max(1, Math.floor(tokensPerTask / Math.max(1, width)));
    for (let i = 0; i < group.length; i += rows) tasks.push({ rows: group.slice(i, i + rows), width });
  }
  return tasks.sort((a, b) => b.rows.length * b.width - a.rows.length * a.width || b.width - a.width || a.rows[0] - b.rows[0]).map((t) => t.rows);
}
