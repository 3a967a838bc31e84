import { createHash } from 'node:crypto';

/**
 * The key of the ranking tie order when a run names none: the run seed's default (schemas/runConfig.ts
 * DEFAULT_SEED = 0) written as text. A run records the key it used (scoring/manifest.json `tie_break`,
 * rankings Parquet metadata), so anyone can rebuild its order.
 */
export const DEFAULT_TIE_KEY = '0';

/** The tie key of a run seed: its decimal text, so `--seed 7` orders ties by SHA-256("7\0" + id). */
export function tieKeyOfSeed(seed: number): string {
  return String(seed);
}

/**
 * Position of `id` in the keyed tie order: the first 48 bits of SHA-256(key + "\0" + id), as a number.
 *
 * Why a cryptographic hash and not FNV-1a: 32-bit FNV-1a of ids that differ only in a short suffix is far from
 * uniform (`<q>_canonical` sorted before all of `<q>_d1 … <q>_d4` in 480 of 1,000 groups, a blind order gives
 * 200; issue 28), and every tie it "breaks" then credits the canonical. SHA-256 makes each group's order a
 * fresh uniform permutation; the key (the run seed) makes it a recorded, changeable choice rather than a
 * property of the ids. 48 bits fit a double exactly; collisions (about n²/2^49) fall back to the id.
 */
export function tieRank(key: string, id: string): number {
  const d = createHash('sha256').update(key).update('\0').update(id).digest();
  return d.readUIntBE(0, 6);
}

/** Human-readable statement of the rule, for manifests and file metadata. */
export function tieRuleText(key: string): string {
  return `score desc, then first 48 bits of SHA-256(tie_key + "\\0" + corpus_id) asc (tie_key ${JSON.stringify(key)}), then corpus_id asc`;
}
