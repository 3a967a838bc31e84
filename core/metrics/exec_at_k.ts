/**
 * exec@k (the paper, §metrics): 1 when at least one of the top-k retrieved snippets passes all of the query's
 * tests as run by the execution oracle, else 0. `passed[i]` is the oracle verdict for the snippet at rank i+1.
 * A ranking shorter than k is scored on what it has.
 */
export function execAtK(passed: readonly boolean[], k: number): 0 | 1 {
  checkK(k);
  const end = Math.min(k, passed.length);
  for (let i = 0; i < end; i++) if (passed[i]) return 1;
  return 0;
}

export function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}
