import assert from 'node:assert/strict';

/** Every number of `a` equals `b`'s to `tol`, every other value exactly, same keys; the path names the first difference. */
export function assertClose(a: unknown, b: unknown, path = '', tol = 1e-12): void {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(a === b || Math.abs(a - b) <= tol, `${path}: ${a} vs ${b}`);
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${path}: keys`);
    for (const k of Object.keys(a)) assertClose((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, tol);
    return;
  }
  assert.equal(a, b, path);
}
