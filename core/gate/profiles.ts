/** Bounds the schema stage checks. The paper's own: exactly 4 distractors and 7–10 tests. */
export interface GateProfile {
  name: string;
  distractors: { min: number; max: number };
  tests: { min: number; max: number };
  /** Only the paper's six single-edit bug types are accepted. */
  restrictBugTypes: boolean;
}

export const PROFILES = {
  default: { name: 'default', distractors: { min: 4, max: 4 }, tests: { min: 7, max: 10 }, restrictBugTypes: true },
  /** MBPP ships 3 asserts per task; mechanical mutation may find fewer than 4 verified mutants. */
  mbpp: { name: 'mbpp', distractors: { min: 1, max: 4 }, tests: { min: 3, max: 3 }, restrictBugTypes: true },
  /** Tasks before distractors exist (curated sources, registries): the gate's canonical stages only. */
  canonical: { name: 'canonical', distractors: { min: 0, max: 4 }, tests: { min: 1, max: 100 }, restrictBugTypes: true },
} as const satisfies Record<string, GateProfile>;

export type ProfileName = keyof typeof PROFILES;

export function getProfile(name: string): GateProfile {
  const p = (PROFILES as Record<string, GateProfile>)[name];
  if (!p) throw new Error(`unknown gate profile "${name}" (known: ${Object.keys(PROFILES).join(', ')})`);
  return p;
}
