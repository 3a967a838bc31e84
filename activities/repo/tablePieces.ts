import type { Node } from 'web-tree-sitter';
import type { SourceRole } from '../../schemas/gold.ts';
import type { DefKind, SyntaxTable } from './language.ts';
import { leadingCommentStart, lineEnd, lineStart, splitMembers, type Piece } from './pieces.ts';

/**
 * Pieces of a file in a table-driven language (activities/repo/language.ts): one per definition with the
 * comments and attributes directly above it, members of a long container (class, struct, impl, trait) one
 * per piece named `Owner.member`, namespaces (C++/C# namespaces, Rust mods, Ruby modules) chunked as if their
 * contents were at the top level, and the statements between definitions grouped as glue (imports, calls,
 * top-level test blocks). The same bounds and role rules as the TS/JS/Python chunker.
 */

/** Where a container's members live, when the grammar gives the body no field name. */
const BODY_TYPES = new Set([
  'body_statement',
  'declaration_list',
  'class_body',
  'field_declaration_list',
  'enum_body',
  'enum_class_body',
  'enum_member_declaration_list',
  'enum_declaration_list',
  'protocol_body',
  'extension_body',
  'interface_body',
  'enumerator_list',
  'compound_statement',
]);

/** Children that carry a definition's name when the definition node has no `name` field (specs, declarators). */
const NAME_CARRIERS = new Set([
  'type_spec',
  'type_alias',
  'const_spec',
  'var_spec',
  'var_spec_list',
  'const_spec_list',
  'const_element',
  'property_element',
  'variable_declarator',
  'variable_declaration',
  'init_declarator',
  'function_signature',
  'getter_signature',
  'setter_signature',
  'constructor_signature',
  'factory_constructor_signature',
  'initialized_identifier_list',
  'initialized_identifier',
]);

const IDENTIFIER = /(^|_)identifier$|^(name|constant|variable_name|simple_identifier|destructor_name|operator_name|namespace_name)$/;

/** A name node's last segment (`a::b::C` → `C`, `App\\Models` → `Models`). */
function baseName(n: Node): string {
  const inner = n.childForFieldName('name');
  if (inner && inner.id !== n.id && (n.type.includes('qualified') || n.type.includes('scope') || n.type.includes('scoped'))) return baseName(inner);
  return n.text.replace(/^.*(::|\\|\.)/, '').replace(/^\$/, '');
}

/** The identifier a C/C++ declarator chain ends in (`*f(int)` → `f`), or null. */
function declaratorName(d: Node | null): Node | null {
  for (let n = d; n; n = n.childForFieldName('declarator') ?? n.childForFieldName('name') ?? null) {
    if (IDENTIFIER.test(n.type) || n.type === 'qualified_identifier') return n;
    if (!n.childForFieldName('declarator') && !n.childForFieldName('name')) return n.namedChildren.find((c) => !!c && IDENTIFIER.test(c.type)) ?? null;
  }
  return null;
}

/** The base type a Rust `impl` or a Go receiver names (`impl<T> Foo<T> for Bar` → `Bar`). */
function typeBase(t: Node): string {
  if (t.type === 'generic_type' || t.type === 'pointer_type' || t.type === 'reference_type') {
    const inner = t.childForFieldName('type') ?? t.namedChildren.find((c) => !!c && /type/.test(c.type));
    if (inner) return typeBase(inner);
  }
  if (t.type === 'scoped_type_identifier') return t.childForFieldName('name')?.text ?? t.text;
  const id = t.type === 'type_identifier' ? t : t.descendantsOfType('type_identifier')[0];
  return (id ?? t).text;
}

/** What the definition node itself is, past wrappers (C++ `template<…>`). */
function unwrapTemplate(node: Node): Node {
  if (node.type !== 'template_declaration') return node;
  return [...node.namedChildren].reverse().find((c) => !!c && c.type !== 'template_parameter_list') ?? node;
}

/** Names a definition defines (most have one; `const ( A = 1; B = 2 )` has several). */
export function namesOf(node: Node): string[] {
  const def = unwrapTemplate(node);
  const name = def.childForFieldName('name');
  if (name) return [baseName(name)];
  const d = declaratorName(def.childForFieldName('declarator'));
  if (d) return [baseName(d)];
  const carried = def.namedChildren.filter((c): c is Node => !!c && NAME_CARRIERS.has(c.type)).flatMap(namesOf);
  if (carried.length) return [...new Set(carried)];
  const left = def.childForFieldName('left');
  if (left && (left.type === 'constant' || left.type === 'identifier')) return [left.text];
  const t = def.childForFieldName('type');
  if (def.type === 'impl_item' && t) return [typeBase(t)];
  const id = NAME_CARRIERS.has(def.type) ? def.namedChildren.find((c) => !!c && IDENTIFIER.test(c.type)) : null;
  return id ? [baseName(id)] : [];
}

/** The type a method belongs to when it is written outside it: a Go receiver, a C++ `C::m`, a Ruby `def self.x` (none). */
function ownerOf(node: Node): string | null {
  const def = unwrapTemplate(node);
  const receiver = def.childForFieldName('receiver');
  if (receiver && def.type === 'method_declaration') {
    const t = receiver.descendantsOfType('type_identifier')[0];
    if (t) return t.text;
  }
  const d = declaratorName(def.childForFieldName('declarator'));
  if (d?.type === 'qualified_identifier') {
    const scope = d.childForFieldName('scope');
    if (scope) return baseName(scope);
  }
  return null;
}

function bodyOf(node: Node): Node | null {
  const def = unwrapTemplate(node);
  const b = def.childForFieldName('body');
  if (b && b.namedChildCount > 0) return b;
  return def.namedChildren.find((c) => !!c && BODY_TYPES.has(c.type)) ?? b ?? null;
}

/** The kind a node is in this table, with the cases a node type alone does not decide. */
function kindOf(node: Node, table: SyntaxTable): DefKind | null {
  const def = unwrapTemplate(node);
  const kind = table.definitions[node.type] ?? table.definitions[def.type];
  if (!kind) return null;
  if (def.type === 'class_declaration' && /^(?:\w+\s+)*extension\b/.test(def.text)) return 'impl'; // Swift `extension T`
  if (namesOf(node).length === 0 && kind !== 'scope') return null;
  // C/C++ `declaration`: a prototype declares; a global with a value is a definition of it.
  if (def.type === 'declaration' || def.type === 'field_declaration') return def.descendantsOfType('function_declarator').length && !def.descendantsOfType('compound_statement').length ? 'declaration' : 'type';
  // `struct S;`, `mod foo;`, `namespace App;` without a body name something defined elsewhere (or what follows).
  if ((kind === 'namespace' || kind === 'container') && !bodyOf(node)) return def.type === 'struct_specifier' || def.type === 'union_specifier' ? null : kind === 'namespace' ? null : 'type';
  // A Ruby assignment defines a constant only (`X = 1`), not a local.
  if (def.type === 'assignment' && def.childForFieldName('left')?.type !== 'constant') return null;
  return kind;
}

/** The callee word a call statement starts with (`describe "x" do`, `require 'y'`, `test('z', …)`, `RSpec.describe`). */
function calleeOf(node: Node): string | null {
  const m = /^\s*(?:\w+\.)?(\w+)/.exec(node.text);
  return m ? m[1] : null;
}

export function tablePieces(top: readonly Node[], table: SyntaxTable, source: string, maxLines: number): Piece[] {
  const out: Piece[] = [];
  const leading = (n: Node) => table.leading.has(n.type);
  const isImport = (n: Node) => table.imports.has(n.type) || (!!table.importCalls && (n.type === 'call' || n.type === 'expression_statement') && table.importCalls.has(calleeOf(n) ?? ''));
  const isTestCall = (n: Node) => !!table.testCalls && !table.definitions[n.type] && table.testCalls.has(calleeOf(n) ?? '');
  const marked = (start: number, node: Node) => {
    if (!table.testMark) return false;
    const name = unwrapTemplate(node).childForFieldName('name') ?? unwrapTemplate(node).childForFieldName('body');
    return table.testMark.test(source.slice(start, name ? name.startIndex : Math.min(node.endIndex, node.startIndex + 200)));
  };
  const roleOf = (kind: DefKind, test: boolean): SourceRole => (test ? 'test' : kind === 'declaration' || kind === 'interface' ? 'declaration' : 'definition');

  const flushGlue = (glue: Node[]) => {
    let group: Node[] = [];
    const emit = () => {
      if (!group.length) return;
      const code = group.filter((n) => !leading(n));
      const role: SourceRole = code.length && code.every(isImport) ? 'import' : code.some(isTestCall) ? 'test' : 'call_site';
      out.push({ start: lineStart(source, group[0].startIndex), end: group[group.length - 1].endIndex, symbols: [], role });
      group = [];
    };
    for (const n of glue) {
      const big = n.endPosition.row - n.startPosition.row >= 3;
      const tooLong = group.length > 0 && n.endPosition.row - group[0].startPosition.row >= maxLines;
      const lastCode = [...group].reverse().find((g) => !leading(g));
      const kindChanges = !!lastCode && !leading(n) && isImport(n) !== isImport(lastCode);
      if (big || tooLong || kindChanges) emit();
      group.push(n);
      if (big) emit(); // a multi-line statement (a test block) is its own chunk
    }
    emit();
  };

  const scope = (nodes: readonly Node[], qualifier: string | null, inTest: boolean) => {
    let glue: Node[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      const kind = leading(node) ? null : kindOf(node, table);
      if (!kind) {
        glue.push(node);
        continue;
      }
      let end = node.endIndex;
      while (table.continuation && i + 1 < nodes.length && table.continuation.has(nodes[i + 1].type)) end = nodes[++i].endIndex;
      // Comments and attributes directly above (in the glue so far: a Ruby class's doc comment sits outside its module's body).
      let lead = node.startIndex;
      for (let k = glue.length - 1, row = node.startPosition.row; k >= 0 && leading(glue[k]) && glue[k].endPosition.row >= row - 1; k--) {
        lead = glue[k].startIndex;
        row = glue[k].startPosition.row;
      }
      flushGlue(glue.filter((g) => g.startIndex < lead));
      glue = [];
      const start = lineStart(source, lead);
      const test = inTest || marked(start, node);
      const names = namesOf(node);
      const qualify = (n: string) => (qualifier ? [n, `${qualifier}.${n}`] : [n]);
      if (kind === 'scope') {
        const cond = node.childForFieldName('name') ?? node.childForFieldName('condition');
        scope(node.namedChildren.filter((c): c is Node => !!c && c.id !== cond?.id), qualifier, test);
        continue;
      }
      if (kind === 'namespace') {
        const body = bodyOf(node)!;
        const name = names[0];
        // Comments between the name and the body (Ruby's `module M` then `# doc` then the class) are the body's.
        const members = [...node.namedChildren.filter((c): c is Node => !!c && leading(c) && c.startIndex < body.startIndex), ...body.namedChildren.filter((c): c is Node => !!c)];
        const first = members.find((m) => !leading(m)) ?? null;
        const headEnd = first ? Math.max(start, lineStart(source, members[0].startIndex) - 1) : node.endIndex;
        out.push({ start, end: Math.max(headEnd, lineEnd(source, node.startIndex)), symbols: qualify(name), role: roleOf(kind, test) });
        if (first) {
          scope(members, name, test);
          const last = members[members.length - 1];
          const tail = source.slice(last.endIndex, node.endIndex);
          if (tail.trim() && !/^[\s};,)]*$/.test(tail)) out.push({ start: lineStart(source, last.endIndex + tail.search(/\S/)), end: node.endIndex, symbols: qualify(name), role: roleOf(kind, test) });
        }
        continue;
      }
      if (kind === 'container' || kind === 'interface' || kind === 'impl') {
        const name = names[0];
        const body = bodyOf(node);
        const members = (body?.namedChildren ?? []).filter((m): m is Node => !!m && !leading(m) && !table.continuation?.has(m.type));
        const endOf = (m: Node) => {
          let e = m.endIndex;
          for (let s = m.nextNamedSibling; s && table.continuation?.has(s.type); s = s.nextNamedSibling) e = s.endIndex;
          return e;
        };
        const memberNames = (m: Node) => (kindOf(m, table) ? namesOf(m) : []);
        const memberRole = (m: Node): SourceRole => {
          const k = kindOf(m, table) ?? 'type';
          return roleOf(kind === 'interface' && k === 'function' ? 'declaration' : k, test || marked(lineStart(source, leadingCommentStart(m, leading)), m));
        };
        const long = node.endPosition.row - node.startPosition.row + 1 > maxLines;
        if (long) {
          const memberSymbols = (m: Node) => memberNames(m).flatMap((n) => [n, `${name}.${n}`]);
          const headSymbols = kind === 'impl' ? [] : [name];
          splitMembers({ name, members, memberSymbols, memberRole, role: roleOf(kind, test), headSymbols, isLeading: leading, endOf }, node, start, source, out);
        } else {
          const qualified = members.flatMap(memberNames).map((n) => `${name}.${n}`);
          const role = roleOf(kind, test) === 'definition' && members.some((m) => memberRole(m) === 'test') ? 'test' : roleOf(kind, test);
          out.push({ start, end, symbols: [...new Set([...(kind === 'impl' ? [] : qualify(name)), ...qualified])], role, ...(kind === 'impl' ? { owner: name } : {}) });
        }
        continue;
      }
      const owner = ownerOf(node);
      const symbols = names.flatMap((n) => (owner ? [n, `${owner}.${n}`] : qualify(n)));
      out.push({ start, end, symbols: [...new Set(symbols)], role: roleOf(kind, test), ...(owner ? { owner } : {}) });
    }
    flushGlue(glue);
  };
  scope(top, null, false);
  // Some grammars end a node after its newline (C's `#define`, `#include`): a piece ends at its last character.
  return out.map((p) => ({ ...p, end: p.start + source.slice(p.start, p.end).trimEnd().length }));
}
