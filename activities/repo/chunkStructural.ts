import type { Node } from 'web-tree-sitter';
import type { SourceRole } from '../../schemas/gold.ts';
import type { Chunk, Language } from '../../schemas/repoIndex.ts';
import { fileRole } from '../../core/repo/roles.ts';
import { parserFor, type GrammarName } from './treeSitter.ts';

/**
 * Structural chunking with tree-sitter: one chunk per top-level definition (with its leading comments,
 * so a JSDoc/docstring stays with its signature), big classes split into a head chunk and one chunk per
 * method, and the statements between definitions grouped into "glue" chunks (imports, calls, top-level
 * test cases). Roles: a file-level role (test, docs, config, generated, migration) wins; otherwise
 * interfaces, type aliases and ambient declarations are `declaration`, other named definitions
 * `definition`, and glue `call_site` (or `definition` when it assigns module-level names).
 * Bump CHUNKER_VERSION whenever any of this changes: chunk ids and roles change with it.
 */
export const STRUCTURAL_CHUNKER_VERSION = 'ts-structural-1';

/** Classes longer than this are split per method; glue chunks are cut at this length too. */
const MAX_LINES = 80;

interface Piece {
  start: number; // char index
  end: number;
  symbols: string[];
  role: SourceRole;
  /** Names defined around it (the class of a method), kept as references. */
  owner?: string;
}

const DEF_TYPES_TS = new Set([
  'function_declaration',
  'generator_function_declaration',
  'class_declaration',
  'abstract_class_declaration',
  'interface_declaration',
  'type_alias_declaration',
  'enum_declaration',
  'lexical_declaration',
  'variable_declaration',
  'ambient_declaration',
  'module',
  'internal_module',
  'function_signature',
]);
const DEF_TYPES_PY = new Set(['function_definition', 'class_definition', 'decorated_definition']);
const DECLARATION_TYPES = new Set(['interface_declaration', 'type_alias_declaration', 'ambient_declaration', 'function_signature']);
const CLASS_TYPES = new Set(['class_declaration', 'abstract_class_declaration', 'class_definition', 'class']);
const METHOD_TYPES = new Set(['method_definition', 'function_definition', 'decorated_definition', 'abstract_method_signature', 'public_field_definition']);

/** The declaration a wrapper (export, decorator) carries. */
function unwrap(node: Node): Node {
  if (node.type === 'export_statement') {
    const d = node.childForFieldName('declaration') ?? node.namedChildren.find((c) => c && (DEF_TYPES_TS.has(c.type) || c.type === 'class'));
    if (d) return d;
  }
  if (node.type === 'decorated_definition') {
    const d = node.childForFieldName('definition');
    if (d) return d;
  }
  return node;
}

function namesOf(def: Node): string[] {
  const name = def.childForFieldName('name');
  if (name) return [name.text];
  if (def.type === 'lexical_declaration' || def.type === 'variable_declaration') {
    return def.namedChildren
      .filter((c): c is Node => !!c && c.type === 'variable_declarator')
      .map((c) => c.childForFieldName('name'))
      .filter((n): n is Node => !!n && n.type === 'identifier')
      .map((n) => n.text);
  }
  if (def.type === 'ambient_declaration') return def.namedChildren.flatMap((c) => (c ? namesOf(c) : []));
  return [];
}

function pyAssignedNames(node: Node): string[] {
  if (node.type !== 'expression_statement') return [];
  const a = node.namedChildren[0];
  if (!a || a.type !== 'assignment') return [];
  const left = a.childForFieldName('left');
  return left && left.type === 'identifier' ? [left.text] : [];
}

function isDefinition(node: Node, grammar: GrammarName): boolean {
  const d = unwrap(node);
  const types = grammar === 'python' ? DEF_TYPES_PY : DEF_TYPES_TS;
  if (!types.has(d.type) && !(d.type === 'class' && node.type === 'export_statement')) return false;
  return namesOf(d).length > 0;
}

function classBody(def: Node): Node | null {
  return def.childForFieldName('body');
}

function lineStart(source: string, index: number): number {
  return source.lastIndexOf('\n', index - 1) + 1;
}

/**
 * 1-based line of a string index: one plus the newlines before it. The newline positions are found once per
 * file and each lookup is a binary search, so numbering every chunk is not quadratic in the file's length.
 */
function lineNumbers(source: string): (index: number) => number {
  const newlines: number[] = [];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) newlines.push(i);
  return (index) => {
    let lo = 0;
    let hi = newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newlines[mid] < index) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

function splitClass(def: Node, outer: Node, leadStart: number, source: string, out: Piece[]): void {
  const cls = namesOf(def)[0];
  const body = classBody(def);
  const members = (body?.namedChildren ?? []).filter((m): m is Node => !!m && METHOD_TYPES.has(m.type));
  const methods = members.filter((m) => {
    const u = unwrap(m);
    return u.type !== 'public_field_definition' && (u.childForFieldName('name') ?? null) !== null;
  });
  if (methods.length === 0) {
    out.push({ start: leadStart, end: outer.endIndex, symbols: [cls], role: 'definition' });
    return;
  }
  // Head: from the class's leading comments to the line before the first method (its own comments included).
  const firstStart = lineStart(source, leadingCommentStart(methods[0]));
  out.push({ start: leadStart, end: Math.max(firstStart - 1, leadStart), symbols: [cls], role: 'definition' });
  methods.forEach((m, i) => {
    const name = unwrap(m).childForFieldName('name')!.text;
    const start = lineStart(source, leadingCommentStart(m));
    const next = methods[i + 1];
    const end = next ? m.endIndex : outer.endIndex; // the last method takes the closing brace
    out.push({ start, end, symbols: [name, `${cls}.${name}`], role: 'definition', owner: cls });
  });
}

/** Start of the comments directly above a node (no blank line between), else the node's own start. */
function leadingCommentStart(node: Node): number {
  let start = node.startIndex;
  let row = node.startPosition.row;
  let prev = node.previousNamedSibling;
  while (prev && prev.type === 'comment' && prev.endPosition.row >= row - 1) {
    start = prev.startIndex;
    row = prev.startPosition.row;
    prev = prev.previousNamedSibling;
  }
  return start;
}

function collectReferences(node: Node, own: ReadonlySet<string>, into: Set<string>): void {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if ((n.type === 'identifier' || n.type === 'type_identifier' || n.type === 'property_identifier') && n.text.length > 1 && !own.has(n.text)) {
      into.add(n.text);
    }
    for (const c of n.namedChildren) if (c) stack.push(c);
  }
}

export async function chunkStructural(path: string, source: string, language: Language, grammar: GrammarName, revision: string): Promise<Chunk[]> {
  const parser = await parserFor(grammar);
  const tree = parser.parse(source);
  if (!tree) throw new Error(`${path}: tree-sitter returned no tree`);
  try {
    const top = tree.rootNode.namedChildren.filter((n): n is Node => !!n);
    const pieces: Piece[] = [];
    let glue: Node[] = [];
    const flushGlue = () => {
      // Comments directly above a definition went with it; whatever remains is glue.
      let group: Node[] = [];
      const emit = () => {
        if (!group.length) return;
        const names = grammar === 'python' ? group.flatMap(pyAssignedNames) : [];
        pieces.push({ start: lineStart(source, group[0].startIndex), end: group[group.length - 1].endIndex, symbols: names, role: names.length ? 'definition' : 'call_site' });
        group = [];
      };
      for (const n of glue) {
        const big = n.endPosition.row - n.startPosition.row >= 3;
        const tooLong = group.length > 0 && n.endPosition.row - group[0].startPosition.row >= MAX_LINES;
        if (big || tooLong) emit();
        group.push(n);
        if (big) emit(); // a multi-line statement (a test case, a describe block) is its own chunk
      }
      emit();
      glue = [];
    };
    for (const node of top) {
      if (node.type === 'comment') {
        glue.push(node);
        continue;
      }
      if (!isDefinition(node, grammar)) {
        glue.push(node);
        continue;
      }
      const lead = leadingCommentStart(node);
      glue = glue.filter((g) => g.startIndex < lead);
      flushGlue();
      const def = unwrap(node);
      const start = lineStart(source, lead);
      const long = node.endPosition.row - node.startPosition.row + 1 > MAX_LINES;
      if (CLASS_TYPES.has(def.type) && long) splitClass(def, node, start, source, pieces);
      else {
        const declaration = DECLARATION_TYPES.has(def.type) || /\.d\.[cm]?ts$/.test(path);
        pieces.push({ start, end: node.endIndex, symbols: namesOf(def), role: declaration ? 'declaration' : 'definition' });
      }
    }
    flushGlue();

    const forced = fileRole(path, source);
    const seen = new Map<string, number>();
    const chunks: Chunk[] = [];
    const lineOf = lineNumbers(source);
    let bytePos = 0;
    let charPos = 0;
    const byteAt = (idx: number) => {
      // pieces come in source order, so byte offsets are computed incrementally
      bytePos += Buffer.byteLength(source.slice(charPos, idx));
      charPos = idx;
      return bytePos;
    };
    for (const p of pieces) {
      if (p.end <= p.start) continue;
      const text = source.slice(p.start, p.end);
      if (!text.trim()) continue;
      const startLine = lineOf(p.start);
      const endLine = lineOf(p.end);
      const own = new Set(p.symbols);
      const refs = new Set<string>(p.owner ? [p.owner] : []);
      // References: identifiers inside the piece, from every top-level node overlapping it.
      for (const n of top) if (n.endIndex > p.start && n.startIndex < p.end) collectReferencesInRange(n, p.start, p.end, own, refs);
      let id = `${path}:${startLine}-${endLine}`;
      const dup = seen.get(id) ?? 0;
      seen.set(id, dup + 1);
      if (dup) id += `~${dup}`;
      chunks.push({
        chunk_id: id,
        file: path,
        revision,
        language,
        start_line: startLine,
        end_line: endLine,
        start_byte: byteAt(p.start),
        end_byte: byteAt(p.end),
        symbols: p.symbols,
        references: [...refs].sort().slice(0, 200),
        role: forced ?? p.role,
        text,
      });
    }
    return chunks;
  } finally {
    tree.delete();
  }
}

function collectReferencesInRange(node: Node, start: number, end: number, own: ReadonlySet<string>, into: Set<string>): void {
  if (node.startIndex >= start && node.endIndex <= end) return collectReferences(node, own, into);
  for (const c of node.namedChildren) if (c && c.endIndex > start && c.startIndex < end) collectReferencesInRange(c, start, end, own, into);
}
