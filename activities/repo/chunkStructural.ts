import type { Node } from 'web-tree-sitter';
import type { SourceRole } from '../../schemas/gold.ts';
import type { Chunk, Language } from '../../schemas/repoIndex.ts';
import { fileRole } from '../../core/repo/roles.ts';
import { boundSpans, byteOffsets, chunksFromParts, DEFAULT_CHUNK_LIMITS, lineNumbers, type ChunkLimits } from '../../core/repo/chunkBounds.ts';
import { parserFor, type GrammarName } from './treeSitter.ts';
import { leadingCommentStart, lineStart, splitMembers, type Piece } from './pieces.ts';
import { syntaxTableOf } from './language.ts';
import { tablePieces } from './tablePieces.ts';

/**
 * Structural chunking with tree-sitter: one chunk per top-level definition (with its leading comments,
 * so a JSDoc/docstring stays with its signature), big classes split into a head chunk and one chunk per
 * member (fields, overloads, accessors and methods alike; small classes stay whole but name every member
 * among their symbols), and the statements between definitions grouped into "glue" chunks (imports, calls, top-level
 * test cases). Roles: a file-level role (test, docs, config, generated, migration) wins; otherwise
 * interfaces, type aliases and ambient declarations are `declaration`, other named definitions
 * `definition`, and glue `call_site` (or `definition` when it assigns module-level names). These are the
 * TS/JS/Python rules; the other languages of the table (activities/repo/language.ts) get the same bounds and
 * role rules through tablePieces.ts, and every piece goes through the same bounding and naming below.
 * Bump CHUNKER_VERSION whenever any of this changes: chunk ids and roles change with it.
 */
export const STRUCTURAL_CHUNKER_VERSION = 'ts-structural-4';

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
  if (isRequire(node)) return false;
  const d = unwrap(node);
  const types = grammar === 'python' ? DEF_TYPES_PY : DEF_TYPES_TS;
  if (!types.has(d.type) && !(d.type === 'class' && node.type === 'export_statement')) return false;
  return namesOf(d).length > 0;
}

function classBody(def: Node): Node | null {
  return def.childForFieldName('body');
}

/** Class-body entries that are members (everything but comments, which travel with the member they precede). */
function classMembers(body: Node | null, grammar: GrammarName): Node[] {
  const named = (body?.namedChildren ?? []).filter((m): m is Node => !!m && m.type !== 'comment');
  // A Python class's docstring is part of its head, not a member.
  if (grammar === 'python' && named[0]?.type === 'expression_statement' && named[0].namedChildren[0]?.type === 'string') named.shift();
  return named;
}

/** The name a class member defines (method, accessor, overload signature, field), or null (an index signature). */
function memberName(member: Node, grammar: GrammarName): string | null {
  const m = unwrap(member);
  if (m.type === 'class_static_block') return 'static';
  if (m.type === 'index_signature') return null; // its `name` is the key parameter's, not a member's
  if (grammar === 'python' && m.type === 'expression_statement') return pyAssignedNames(m)[0] ?? null;
  const n = m.childForFieldName('name') ?? m.childForFieldName('property');
  return n ? n.text : null;
}

function splitClass(def: Node, outer: Node, leadStart: number, source: string, grammar: GrammarName, out: Piece[]): void {
  const cls = namesOf(def)[0];
  const memberSymbols = (m: Node) => {
    const name = memberName(m, grammar);
    return name ? [name, `${cls}.${name}`] : [];
  };
  splitMembers({ name: cls, members: classMembers(classBody(def), grammar), memberSymbols, memberRole: () => 'definition', role: 'definition' }, outer, leadStart, source, out);
}

const CONTAINER_TYPES = new Set(['internal_module', 'module']);

/**
 * The namespace or module a top-level statement is: `namespace N {}` (which tree-sitter wraps in an
 * expression statement), `module M {}`, `export namespace`, `declare namespace`, `declare module 'x' {}`
 * (named `x`) and `declare global {}` (named `global`); null for anything else.
 */
function containerOf(node: Node): { name: string; body: Node | null; ambient: boolean } | null {
  let d: Node = node;
  if (d.type === 'export_statement') d = d.childForFieldName('declaration') ?? d.namedChildren.find((c) => !!c && (c.type === 'ambient_declaration' || CONTAINER_TYPES.has(c.type))) ?? d;
  if (d.type === 'expression_statement' && d.namedChildren.length === 1 && CONTAINER_TYPES.has(d.namedChildren[0]!.type)) d = d.namedChildren[0]!;
  let ambient = false;
  if (d.type === 'ambient_declaration') {
    ambient = true;
    const inner = d.namedChildren.find((c) => !!c && (CONTAINER_TYPES.has(c.type) || c.type === 'statement_block'));
    if (!inner) return null;
    if (inner.type === 'statement_block') return { name: 'global', body: inner, ambient };
    d = inner;
  }
  if (!CONTAINER_TYPES.has(d.type)) return null;
  const n = d.childForFieldName('name');
  if (!n) return null;
  const body = d.childForFieldName('body') ?? d.namedChildren.find((c) => c?.type === 'statement_block') ?? null;
  return { name: n.type === 'string' ? n.text.slice(1, -1) : n.text, body, ambient };
}

/** Names a statement inside a namespace declares (an inner namespace by its name). */
function innerNames(m: Node): string[] {
  const inner = containerOf(m);
  return inner ? [inner.name] : namesOf(unwrap(m));
}

/** An inner declaration's role: ambient context and type-only forms declare, the rest defines. */
function innerRole(m: Node, ambient: boolean): SourceRole {
  const d = unwrap(m);
  return ambient || DECLARATION_TYPES.has(d.type) || d.type === 'enum_declaration' ? 'declaration' : 'definition';
}

/** The object literal an API is written as: `export default {…}`, `const api = {…}` (also `as const`/`satisfies`), `module.exports = {…}`. */
function objectApiOf(node: Node): { name: string; object: Node } | null {
  const value = (v: Node | null | undefined): Node | null => {
    if (!v) return null;
    if (v.type === 'object') return v;
    if (v.type === 'as_expression' || v.type === 'satisfies_expression' || v.type === 'parenthesized_expression') return value(v.namedChildren[0]);
    return null;
  };
  if (node.type === 'export_statement' && !node.childForFieldName('declaration')) {
    const o = value(node.childForFieldName('value') ?? node.namedChildren.find((c) => c?.type === 'object'));
    if (o) return { name: 'default', object: o };
  }
  const d = unwrap(node);
  if (d.type === 'lexical_declaration' || d.type === 'variable_declaration') {
    const decls = d.namedChildren.filter((c): c is Node => !!c && c.type === 'variable_declarator');
    const o = decls.length === 1 ? value(decls[0].childForFieldName('value')) : null;
    const n = decls[0]?.childForFieldName('name');
    if (o && n?.type === 'identifier') return { name: n.text, object: o };
  }
  if (node.type === 'expression_statement') {
    const a = node.namedChildren[0];
    const left = a?.type === 'assignment_expression' ? a.childForFieldName('left') : null;
    const o = a?.type === 'assignment_expression' ? value(a.childForFieldName('right')) : null;
    if (o && left && (left.text === 'module.exports' || left.text === 'exports.default')) return { name: left.text, object: o };
  }
  return null;
}

/** A key of an object literal: a method, a property or a shorthand property (spreads have none). */
function objectKey(m: Node): string | null {
  if (m.type === 'shorthand_property_identifier') return m.text;
  const k = m.childForFieldName('key') ?? m.childForFieldName('name');
  if (!k) return null;
  return k.type === 'string' ? k.text.slice(1, -1) : k.text;
}

/**
 * A class kept whole names each member as `Class.name` (so a target on a member is met by it). Bare member
 * names are left out on purpose: common ones (`code`, `key`, `get`) are English words, and as symbols they
 * earned a symbol-match bonus in the reranker for unrelated prose queries (measured on data/gold).
 */
function classSymbols(def: Node, grammar: GrammarName): string[] {
  const cls = namesOf(def)[0];
  const names = classMembers(classBody(def), grammar).map((m) => memberName(m, grammar)).filter((n): n is string => !!n);
  return [cls, ...new Set(names.map((n) => `${cls}.${n}`))];
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

/** Imports and re-exports (`export … from`): a region of only these is its own `import` chunk. */
function isImport(node: Node): boolean {
  if (node.type === 'import_statement' || node.type === 'import_from_statement' || node.type === 'future_import_statement') return true;
  return (node.type === 'export_statement' && node.childForFieldName('source') !== null) || isRequire(node);
}

/**
 * `const x = require('./x')`, `const { a } = require('y').z`, `const m = await import('m')`: an import written
 * as a declaration (CommonJS), not a definition of `x` (an import must not satisfy a definition target, nor
 * hide that the symbol moved to another file).
 */
function isRequire(node: Node): boolean {
  if (node.type !== 'lexical_declaration' && node.type !== 'variable_declaration') return false;
  const decls = node.namedChildren.filter((c): c is Node => !!c && c.type === 'variable_declarator');
  return (
    decls.length > 0 &&
    decls.every((v) => {
      let val = v.childForFieldName('value');
      while (val && (val.type === 'member_expression' || val.type === 'await_expression')) val = val.type === 'member_expression' ? val.childForFieldName('object') : val.namedChildren[0];
      return val?.type === 'call_expression' && /^(require|import)$/.test(val.childForFieldName('function')?.text ?? '');
    })
  );
}

/**
 * `module.exports = function getCallers() {…}`, `exports.parse = function (…) {…}`, `module.exports = class C {}`:
 * a definition named by the function or class assigned and by the export's own name.
 */
function exportAssignmentNames(node: Node): string[] {
  const a = node.type === 'expression_statement' ? node.namedChildren[0] : null;
  if (a?.type !== 'assignment_expression') return [];
  const m = /^(?:module\.)?exports(?:\.([A-Za-z_$][\w$]*))?$/.exec(a.childForFieldName('left')?.text ?? '');
  const right = a.childForFieldName('right');
  if (!m || !right || !/^(function_expression|function|generator_function|arrow_function|class)$/.test(right.type)) return [];
  return [...new Set([right.childForFieldName('name')?.text, m[1]].filter((n): n is string => !!n))];
}

/** Functions declared inside a definition (`function outer() { function inner() {} }`): the chunk defines them too. */
function nestedFunctionNames(def: Node): string[] {
  return def.descendantsOfType(['function_declaration', 'generator_function_declaration']).flatMap((n) => (n && n.id !== def.id ? [n.childForFieldName('name')?.text ?? ''] : [])).filter((n) => !!n);
}

/** A Python string statement on its own (a module docstring, or a string standing as a comment): documentation. */
function isDocstring(node: Node): boolean {
  return node.type === 'expression_statement' && node.namedChildCount === 1 && node.namedChildren[0]?.type === 'string' && node.tree.language.name === 'python';
}

/**
 * 0-based line → depth of the shallowest named node starting a line (its first non-blank character):
 * where an over-long piece is best cut. The line right after a comment is no cut point when the comment
 * is as shallow, so a doc comment stays with what it documents.
 */
function cutDepths(root: Node, source: string, span: { start: number; end: number }): Map<number, number> {
  const depth = new Map<number, number>();
  const afterComment: [number, number][] = [];
  const stack: [Node, number][] = [[root, 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    const row = n.startPosition.row;
    const ls = lineStart(source, n.startIndex);
    if (d > 0 && !source.slice(ls, n.startIndex).trim()) {
      const prev = depth.get(row);
      if (prev === undefined || d < prev) depth.set(row, d);
      if (n.type === 'comment') afterComment.push([n.endPosition.row + 1, d]);
    }
    for (const c of n.namedChildren) if (c && c.endIndex > span.start && c.startIndex < span.end) stack.push([c, d + 1]);
  }
  for (const [row, d] of afterComment) if ((depth.get(row) ?? Infinity) >= d) depth.delete(row);
  return depth;
}

/** TS/JS/Python pieces: definitions, containers, object-literal APIs and glue (see the header). */
function ecmaPythonPieces(top: readonly Node[], source: string, path: string, grammar: GrammarName, MAX_LINES: number): Piece[] {
  const pieces: Piece[] = [];
  let glue: Node[] = [];
  const flushGlue = () => {
    // Comments directly above a definition went with it; whatever remains is glue.
    let group: Node[] = [];
    const emit = () => {
      if (!group.length) return;
      const names = grammar === 'python' ? group.flatMap(pyAssignedNames) : [];
      const imports = group.some(isImport) && group.every((n) => isImport(n) || n.type === 'comment');
      const docs = group.some(isDocstring) && group.every((n) => isDocstring(n) || n.type === 'comment');
      pieces.push({ start: lineStart(source, group[0].startIndex), end: group[group.length - 1].endIndex, symbols: names, role: names.length ? 'definition' : imports ? 'import' : docs ? 'docs' : 'call_site' });
      group = [];
    };
    for (const n of glue) {
      const big = n.endPosition.row - n.startPosition.row >= 3;
      const tooLong = group.length > 0 && n.endPosition.row - group[0].startPosition.row >= MAX_LINES;
      const lastCode = [...group].reverse().find((g) => g.type !== 'comment');
      const kindChanges = !!lastCode && n.type !== 'comment' && (isImport(n) !== isImport(lastCode) || isDocstring(n) !== isDocstring(lastCode));
      if (big || tooLong || kindChanges) emit();
      group.push(n);
      if (big) emit(); // a multi-line statement (a test case, a describe block) is its own chunk
    }
    emit();
    glue = [];
  };
  const dts = /\.d\.[cm]?ts$/.test(path);
  for (const node of top) {
    if (node.type === 'comment') {
      glue.push(node);
      continue;
    }
    // A stray `;` or `}` right after a definition (`type T = …\n;`, error recovery's leftovers) is that
    // definition's closing line, not a nameless chunk of its own.
    const last = pieces[pieces.length - 1];
    if (!glue.length && last && /^[\]});,]+$/.test(node.text.trim()) && (node.type === 'empty_statement' || node.type === 'ERROR')) {
      last.end = Math.max(last.end, node.endIndex);
      continue;
    }
    const container = grammar === 'python' ? null : containerOf(node);
    const api = grammar === 'python' || container ? null : objectApiOf(node);
    const exported = grammar === 'python' || container || api ? [] : exportAssignmentNames(node);
    if (!container && !api && !exported.length && !isDefinition(node, grammar)) {
      glue.push(node);
      continue;
    }
    const lead = leadingCommentStart(node);
    glue = glue.filter((g) => g.startIndex < lead);
    flushGlue();
    const def = unwrap(node);
    const start = lineStart(source, lead);
    const long = node.endPosition.row - node.startPosition.row + 1 > MAX_LINES;
    if (container) {
      // A namespace or module keeps its name and names what it declares (bare and qualified: the bare
      // name is how a type inside `declare module 'x'` is referred to); a long one is split per member.
      const ambient = container.ambient || dts;
      const members = (container.body?.namedChildren ?? []).filter((m): m is Node => !!m && m.type !== 'comment');
      const memberSymbols = (m: Node) => {
        const names = innerNames(m);
        return names.length ? names.flatMap((n) => [n, `${container.name}.${n}`]) : [container.name];
      };
      const role: SourceRole = ambient ? 'declaration' : 'definition';
      if (long) splitMembers({ name: container.name, members, memberSymbols, memberRole: (m) => innerRole(m, ambient), role }, node, start, source, pieces);
      else pieces.push({ start, end: node.endIndex, symbols: [container.name, ...new Set(members.flatMap((m) => memberSymbols(m).filter((x) => x !== container.name)))], role });
      continue;
    }
    if (api) {
      // An object-literal API names its keys (qualified, as a whole class names its members); a long one is split per key.
      const members = api.object.namedChildren.filter((m): m is Node => !!m && m.type !== 'comment');
      const keys = members.map(objectKey);
      if (long) {
        const memberSymbols = (m: Node) => {
          const k = objectKey(m);
          return k ? [k, `${api.name}.${k}`] : [api.name];
        };
        splitMembers({ name: api.name, members, memberSymbols, memberRole: () => 'definition', role: 'definition' }, node, start, source, pieces);
      } else pieces.push({ start, end: node.endIndex, symbols: [api.name, ...new Set(keys.filter((k): k is string => !!k).map((k) => `${api.name}.${k}`))], role: 'definition' });
      continue;
    }
    if (exported.length) {
      pieces.push({ start, end: node.endIndex, symbols: [...new Set([...exported, ...nestedFunctionNames(node)])], role: 'definition' });
      continue;
    }
    if (CLASS_TYPES.has(def.type) && long) splitClass(def, node, start, source, grammar, pieces);
    else if (CLASS_TYPES.has(def.type)) pieces.push({ start, end: node.endIndex, symbols: classSymbols(def, grammar), role: 'definition' });
    else {
      const declaration = DECLARATION_TYPES.has(def.type) || dts;
      const body = long && def.type === 'interface_declaration' ? def.childForFieldName('body') : null;
      const members = body?.namedChildren.flatMap((m) => {
        const n = m?.childForFieldName('name');
        return m && n ? [{ start: m.startIndex, name: n.text }] : [];
      });
      const nested = grammar === 'python' ? [] : nestedFunctionNames(def);
      pieces.push({ start, end: node.endIndex, symbols: [...new Set([...namesOf(def), ...nested])], role: declaration ? 'declaration' : 'definition', members });
    }
  }
  flushGlue();
  return pieces;
}

export async function chunkStructural(path: string, source: string, language: Language, grammar: GrammarName, revision: string, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Promise<Chunk[]> {
  const parser = await parserFor(grammar);
  const tree = parser.parse(source);
  if (!tree) throw new Error(`${path}: tree-sitter returned no tree`);
  try {
    const top = tree.rootNode.namedChildren.filter((n): n is Node => !!n);
    const table = syntaxTableOf(language);
    const pieces = table ? tablePieces(top, table, source, limits.maxLines) : ecmaPythonPieces(top, source, path, grammar, limits.maxLines);
    const forced = fileRole(path, source);
    const lineOf = lineNumbers(source);
    const byteAt = byteOffsets(source);
    // Over-long pieces are cut at structural boundaries; every part keeps its piece's symbols and role and
    // links to the first part (`parent`), so each still names the definition it belongs to.
    const kept = coverGaps(source, pieces.filter((p) => p.end > p.start && source.slice(p.start, p.end).trim()));
    const parts = boundSpans(source, kept, (span) => cutDepths(tree.rootNode, source, span), limits);
    return chunksFromParts(source, parts, { path, revision, language, lineOf, byteAt, maxTokens: limits.maxTokens }, (b) => {
      const p = kept[b.of];
      const own = new Set(p.symbols);
      const refs = new Set<string>(p.owner ? [p.owner] : []);
      // References: identifiers inside the part, from every top-level node overlapping it.
      for (const n of top) if (n.endIndex > b.start && n.startIndex < b.end) collectReferencesInRange(n, b.start, b.end, own, refs);
      // Every part keeps the piece's names; a part of a long interface also names the members (overload sets) it holds.
      const held = (p.members ?? []).filter((m) => m.start >= b.start && m.start < b.end).map((m) => `${p.symbols[0]}.${m.name}`);
      return { symbols: [...new Set([...p.symbols, ...held])], references: [...refs].sort().slice(0, 200), role: forced ?? p.role };
    });
  } finally {
    tree.delete();
  }
}


/**
 * Pieces in order with every non-blank character in one: text between pieces that no named node holds
 * (an anonymous token left at the top level by error recovery) goes to the piece before it when it is only
 * closing punctuation, else into a nameless piece of its own, so no line of the file is unretrievable.
 */
function coverGaps(source: string, pieces: Piece[]): Piece[] {
  const sorted = [...pieces].sort((a, b) => a.start - b.start);
  const out: Piece[] = [];
  let at = 0;
  for (const p of [...sorted, null]) {
    const end = p ? p.start : source.length;
    const gap = source.slice(at, end);
    if (gap.trim()) {
      const prev = out[out.length - 1];
      const from = at + gap.search(/\S/);
      const to = at + gap.trimEnd().length;
      if (prev && /^[\]});,]+$/.test(gap.trim())) prev.end = to;
      else out.push({ start: Math.max(at, lineStart(source, from)), end: to, symbols: [], role: 'call_site' });
    }
    if (p) {
      out.push(p);
      at = Math.max(at, p.end);
    }
  }
  return out;
}

function collectReferencesInRange(node: Node, start: number, end: number, own: ReadonlySet<string>, into: Set<string>): void {
  if (node.startIndex >= start && node.endIndex <= end) return collectReferences(node, own, into);
  for (const c of node.namedChildren) if (c && c.endIndex > start && c.startIndex < end) collectReferencesInRange(c, start, end, own, into);
}
