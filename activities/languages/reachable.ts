import type { Node } from 'web-tree-sitter';
import type { TreeMutationNodes } from '../../core/languages/functional.ts';

/**
 * The spans (string indices) of the top-level definitions the entry function can reach: itself, and every
 * function or method whose name is used, transitively, in reachable code. A mutant edits only inside them, so
 * it cannot fail merely because a test calls an unused helper directly. Names are matched by text (a local
 * variable that shadows a helper's name keeps that helper reachable: the safe side). Empty when the entry
 * function is not defined at the top level.
 */
export function reachableSpans(root: Node, entry: string, nodes: Pick<TreeMutationNodes, 'functions' | 'methods' | 'names'>): [number, number][] {
  const defs = new Map<string, Node[]>();
  for (const top of root.namedChildren) {
    if (!top) continue;
    for (const [name, def] of definitions(top, nodes)) defs.set(name, [...(defs.get(name) ?? []), def]);
  }
  const seen = new Set<Node>();
  const queue = [...(defs.get(entry) ?? []).filter((d) => !nodes.methods.includes(d.type))];
  if (!queue.length) return [];
  while (queue.length) {
    const d = queue.pop()!;
    if ([...seen].some((s) => s.id === d.id)) continue;
    seen.add(d);
    for (const name of usedNames(d, nodes.names)) for (const next of defs.get(name) ?? []) queue.push(next);
  }
  return [...seen].map((d) => [d.startIndex, d.endIndex] as [number, number]).sort((a, b) => a[0] - b[0]);
}

/** (name, node) for a top-level statement that defines a function: a declaration, a method, or `const f = (...) => ...`. */
function definitions(top: Node, nodes: Pick<TreeMutationNodes, 'functions' | 'methods'>): [string, Node][] {
  if (nodes.functions.includes(top.type) || nodes.methods.includes(top.type)) {
    const name = top.childForFieldName('name');
    return name ? [[name.text, top]] : [];
  }
  if (top.type === 'decorated_definition') {
    const name = top.childForFieldName('definition')?.childForFieldName('name');
    return name ? [[name.text, top]] : [];
  }
  if (top.type === 'export_statement') return top.namedChildren.flatMap((c) => (c ? definitions(c, nodes) : []));
  if (top.type === 'lexical_declaration' || top.type === 'variable_declaration') {
    return top.namedChildren.flatMap((d) => {
      const name = d?.childForFieldName('name');
      const value = d?.childForFieldName('value');
      return d && name && value && /function|arrow/.test(value.type) ? [[name.text, d] as [string, Node]] : [];
    });
  }
  return [];
}

function usedNames(n: Node, types: readonly string[]): Set<string> {
  const out = new Set<string>();
  const walk = (m: Node) => {
    if (types.includes(m.type)) out.add(m.text);
    for (const c of m.namedChildren) if (c) walk(c);
  };
  walk(n);
  return out;
}

/** Python's row for reachability (its mutants come from infra/python/mutate.py; only the filter is shared). */
export const PYTHON_DEFINITIONS: Pick<TreeMutationNodes, 'functions' | 'methods' | 'names'> = {
  functions: ['function_definition', 'class_definition'],
  methods: [],
  names: ['identifier'],
};

/** Top-level definitions the entry function cannot reach (string indices); empty when it is not defined at the top. */
export function unreachableSpans(root: Node, entry: string, nodes: Pick<TreeMutationNodes, 'functions' | 'methods' | 'names'>): [number, number][] {
  const reach = reachableSpans(root, entry, nodes);
  if (!reach.length) return [];
  const all = root.namedChildren.flatMap((top) => (top ? definitions(top, nodes).map(([, d]) => d) : []));
  return all.filter((d) => !reach.some(([s]) => s === d.startIndex)).map((d) => [d.startIndex, d.endIndex]);
}
