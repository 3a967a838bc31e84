/**
 * Build output recognised by what a file is, not by the name of its folder (a `build/` folder often holds
 * build *scripts*, which are source). Two kinds of evidence, both recorded as the exclusion reason:
 * - the repository's own `.gitignore` files ignore the path (it was committed anyway: output someone
 *   force-added) — decided by git (activities/repo/git.ts `ignoredAt`);
 * - the content is minified or bundled (below): a bundler's runtime, a trailing source-map link, or lines
 *   no person writes. Only for the languages bundlers emit (JS, CSS); a long line in Python or TypeScript
 *   source is still source.
 */
const BUNDLED_EXT = /\.(m?js|cjs|css)$/i;
/** A line this long does not come from a person (minifiers write one line per file or per module). */
export const MINIFIED_LINE_CHARS = 1000;
/** Mean non-blank line length above which a file counts as minified. */
export const MINIFIED_MEAN_CHARS = 250;

const BUNDLER_RUNTIME = /__webpack_require__|webpackBootstrap|\bparcelRequire\b|System\.register\(|\b__vite__mapDeps\b/;
const SOURCE_MAP_TRAILER = /\/[/*]# sourceMappingURL=\S+\s*(\*\/)?\s*$/;
/** esbuild and rollup annotate each inlined module with its original path. */
const INLINED_MODULE_COMMENT = /^\/\/ (?:\.\.\/)*node_modules\//gm;

/** Why this file's content is build output (`minified`, `bundled:<evidence>`), or null when it is not. */
export function builtContent(path: string, text: string): string | null {
  if (!BUNDLED_EXT.test(path)) return null;
  if (BUNDLER_RUNTIME.test(text)) return 'bundled:bundler-runtime';
  if (SOURCE_MAP_TRAILER.test(text.slice(-300))) return 'bundled:source-map-trailer';
  if ((text.match(INLINED_MODULE_COMMENT)?.length ?? 0) >= 2) return 'bundled:inlined-modules';
  const lines = text.split('\n').filter((l) => l.trim());
  if (lines.some((l) => l.length >= MINIFIED_LINE_CHARS)) return 'minified';
  if (lines.length && lines.reduce((a, l) => a + l.length, 0) / lines.length >= MINIFIED_MEAN_CHARS) return 'minified';
  return null;
}
