/**
 * Path globs for index policies and gold targets: `**` (any number of segments), `*` (within one segment),
 * `?` (one character other than `/`), `{a,b}` (alternatives, not nested). Hand-written rather than taking
 * picomatch/minimatch because `core/` imports nothing but `schemas/` and `core/`, and this subset is all a
 * path policy needs. As in picomatch, `a/**` matches everything under `a/` and `**\/x` matches `x` at the root too.
 */
const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit) return hit;
  let re = '';
  let i = 0;
  let inBrace = false;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const slashAfter = glob[i + 2] === '/';
        if (atStart && slashAfter) {
          re += '(?:[^/]+/)*'; // zero or more whole segments
          i += 3;
          continue;
        }
        re += '.*';
        i += 2;
        continue;
      }
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      inBrace = true;
      re += '(?:';
    } else if (c === '}' && inBrace) {
      inBrace = false;
      re += ')';
    } else if (c === ',' && inBrace) re += '|';
    else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
    i++;
  }
  if (inBrace) throw new Error(`glob ${JSON.stringify(glob)}: unclosed "{"`);
  const compiled = new RegExp(`^${re}$`);
  cache.set(glob, compiled);
  return compiled;
}

export function isGlob(pattern: string): boolean {
  return /[*?{]/.test(pattern);
}

export function matchGlob(path: string, glob: string): boolean {
  return globToRegExp(glob).test(path);
}
