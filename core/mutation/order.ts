import { Xoshiro128 } from '../stats/prng.ts';
import type { MutationCandidate } from './types.ts';

/** FNV-1a (32-bit) of a string: turns (seed, task id) into a per-task PRNG seed, so one task's order does not
 * depend on which other tasks are in the batch. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function shuffled<T>(items: readonly T[], rng: Xoshiro128): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.nextInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The order in which a task's candidates are verified: within each bug type its operators round-robin (each
 * shuffled, seeded), then the types taken round-robin (in a seeded order) so the first few candidates cover as
 * many bug types, and within a type as many operators, as exist.
 * Candidates inside `while` loops go after all others (a mutated loop counter is the usual infinite loop,
 * and a timeout costs more than every other verification). Returns indices into `candidates`.
 */
export function verificationOrder(candidates: readonly MutationCandidate[], seed: number, taskId: string): number[] {
  const rng = new Xoshiro128(fnv1a(`${seed}:${taskId}`));
  const tiers = [false, true].map((inWhile) => {
    const byType = groupBy(candidates.flatMap((c, i) => (c.in_while === inWhile ? [i] : [])), (i) => candidates[i].bug_type);
    const types = shuffled([...byType.keys()].sort(), rng);
    // Within a type, operators take turns too: otherwise the operator with the most sites (dropping an item
    // of a sequence) would fill nearly every off_by_one slot and crowd out constants and range bounds.
    const queues = types.map((t) => {
      const byOperator = groupBy(byType.get(t)!, (i) => candidates[i].operator);
      return roundRobin(shuffled([...byOperator.keys()].sort(), rng).map((op) => shuffled(byOperator.get(op)!, rng)));
    });
    return roundRobin(queues);
  });
  return [...tiers[0], ...tiers[1]];
}

function groupBy(indices: readonly number[], key: (i: number) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const i of indices) {
    const list = groups.get(key(i));
    if (list) list.push(i);
    else groups.set(key(i), [i]);
  }
  return groups;
}

function roundRobin(queues: readonly number[][]): number[] {
  const out: number[] = [];
  for (let round = 0; queues.some((q) => round < q.length); round++) {
    for (const q of queues) if (round < q.length) out.push(q[round]);
  }
  return out;
}
