import { PathPolicy } from '../../schemas/repoIndex.ts';
import { matchGlob } from './glob.ts';

/**
 * The searchable-path policy: what of a revision's tree goes into the index. Exclusions win over
 * inclusions, and the first matching exclusion is recorded as the reason, so a diagnosis can say exactly
 * which rule kept a file out ("excluded by path policy: exclude:src/legacy/**").
 */

/**
 * Generated, vendored and build output that no query should be answered from. No `**\/build/**`: a
 * `build/` folder often holds build scripts (source); build output is recognised by content and by the
 * repository's .gitignore instead (core/repo/buildOutput.ts, `detectBuildOutput`).
 */
export const DEFAULT_EXCLUDES: readonly string[] = [
  '**/node_modules/**',
  '**/vendor/**',
  '**/third_party/**',
  '**/dist/**',
  '**/coverage/**',
  '**/.venv/**',
  '**/__pycache__/**',
  '**/*.min.js',
  '**/*.map',
  '**/package-lock.json',
  '**/yarn.lock',
  '**/pnpm-lock.yaml',
  '**/*.{png,jpg,jpeg,gif,ico,pdf,wasm,zip,gz,parquet,arrow,onnx,bin}',
];

export function defaultPolicy(overrides: Partial<PathPolicy> = {}): PathPolicy {
  return PathPolicy.parse({ include: ['**'], exclude: [...DEFAULT_EXCLUDES], ...overrides });
}

export interface PathDecision {
  included: boolean;
  reason: string;
}

export function decidePath(path: string, bytes: number, policy: PathPolicy): PathDecision {
  const ex = policy.exclude.find((g) => matchGlob(path, g));
  if (ex) return { included: false, reason: `exclude:${ex}` };
  if (!policy.include.some((g) => matchGlob(path, g))) return { included: false, reason: 'not-included' };
  if (bytes > policy.maxFileBytes) return { included: false, reason: 'too-large' };
  return { included: true, reason: 'included' };
}

/** A canonical text of the policy (key order fixed) for hashing into the manifest's `policy_hash`. */
export function canonicalPolicy(policy: PathPolicy): string {
  return JSON.stringify({ include: policy.include, exclude: policy.exclude, maxFileBytes: policy.maxFileBytes, detectBuildOutput: policy.detectBuildOutput });
}
