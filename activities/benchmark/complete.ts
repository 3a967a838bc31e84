import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether a benchmark folder is a finished build: `build` writes manifest.json last, with the sha256 of every
 * file it wrote before. A folder without it, or whose files no longer match it, was left half-written (a killed
 * build) or edited since, and must be built again, never trusted.
 */
export function benchmarkCompleteness(dir: string): { complete: true } | { complete: false; reason: string } {
  if (!existsSync(dir)) return { complete: false, reason: 'not built yet' };
  const manifestPath = join(dir, 'manifest.json');
  let files: Record<string, string>;
  try {
    files = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { files?: Record<string, string> }).files ?? {};
  } catch {
    return { complete: false, reason: existsSync(manifestPath) ? 'manifest.json is unreadable' : 'no manifest.json (an interrupted build)' };
  }
  if (!files['queries.jsonl']) return { complete: false, reason: 'manifest.json lists no queries.jsonl' };
  for (const [name, want] of Object.entries(files)) {
    const path = join(dir, name);
    if (!existsSync(path)) return { complete: false, reason: `${name} is missing` };
    if (createHash('sha256').update(readFileSync(path)).digest('hex') !== want) return { complete: false, reason: `${name} differs from its manifest hash` };
  }
  return { complete: true };
}
