import { analyzeCode } from '../mutation/mutator.ts';

/**
 * The target function of (code, tests) when the record does not name it: the first name called in the tests
 * that the code defines at top level, preferring one called by every test. Python's `ast` does the parsing.
 * Returns a name or an error message per item.
 */
export async function inferFunctionNames(items: readonly { code: string; tests: string[] }[]): Promise<({ name: string } | { error: string })[]> {
  const res = await analyzeCode(items.map((it, i) => ({ id: String(i), code: it.code, tests: it.tests })));
  return res.map((r) => {
    if (!r.ok) return { error: r.error };
    const defined = new Set(r.defined);
    const order: string[] = [];
    for (const names of r.calls) for (const n of names) if (defined.has(n) && !order.includes(n)) order.push(n);
    if (order.length === 0) return { error: `no test calls a function the code defines (defined: ${r.defined.join(', ') || 'none'})` };
    const inAll = order.find((n) => r.calls.every((names) => names.includes(n)));
    return { name: inAll ?? order[0] };
  });
}
