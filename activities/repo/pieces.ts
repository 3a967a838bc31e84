import type { Node } from 'web-tree-sitter';
import type { SourceRole } from '../../schemas/gold.ts';

/**
 * What the structural chunkers (chunkStructural.ts for TS/JS/Python, tablePieces.ts for the table-driven
 * languages) cut a file into before bounding: character spans with the names they define and their role.
 */
export interface Piece {
  start: number; // char index
  end: number;
  symbols: string[];
  role: SourceRole;
  /** Names defined around it (the class of a method), kept as references. */
  owner?: string;
  /** A long interface's members: each part it is cut into also names the members starting in it (`Iface.member`). */
  members?: { start: number; name: string }[];
}

export function lineStart(source: string, index: number): number {
  return source.lastIndexOf('\n', index - 1) + 1;
}

/** Index just past the end of the line holding `index` (its newline excluded). */
export function lineEnd(source: string, index: number): number {
  const nl = source.indexOf('\n', index);
  return nl === -1 ? source.length : nl;
}

const isComment = (n: Node) => n.type === 'comment';

/**
 * What `splitMembers` tiles: a class, a namespace or module, or an object-literal API. Every piece it makes
 * names the container (head, tail) or the member with its qualified name, so no part of it loses its name.
 */
export interface MemberSplit {
  name: string;
  members: Node[];
  memberSymbols: (m: Node) => string[];
  memberRole: (m: Node) => SourceRole;
  role: SourceRole;
  /** What the head and tail pieces name (default `[name]`; an `impl` block names no type it defines). */
  headSymbols?: string[];
  /** Comments (and attributes) that travel with the member after them; default: `comment` nodes. */
  isLeading?: (n: Node) => boolean;
  /** Where a member ends (default its node's end; Dart's method body is a sibling of its signature). */
  endOf?: (m: Node) => number;
}

/**
 * A container as pieces: a head (leading comments, signature, docstring), then one piece per member with the
 * comments above it, so every field, overload, accessor, method or inner declaration is its own symbol
 * (`name`, `Container.name`) with its doc comment. Pieces tile the container: a member ends at the end of its
 * own line (its `;` and a trailing comment), the next one starts where it ended, and the closing brace goes
 * to the last member only when nothing but the brace follows it (else the tail is a piece of its own). No
 * member absorbs another.
 */
export function splitMembers(c: MemberSplit, outer: Node, leadStart: number, source: string, out: Piece[]): void {
  const { members } = c;
  const leading = c.isLeading ?? isComment;
  const endOf = c.endOf ?? ((m: Node) => m.endIndex);
  const head = c.headSymbols ?? [c.name];
  if (members.length === 0) {
    out.push({ start: leadStart, end: outer.endIndex, symbols: head, role: c.role });
    return;
  }
  const starts = members.map((m, i) => {
    const prevEnd = i > 0 ? endOf(members[i - 1]) : -1;
    // Comments between the previous member's line and this member are this member's (its doc comment).
    let lead = m.startIndex;
    for (let cm = m.previousNamedSibling; cm && leading(cm) && cm.startIndex > prevEnd; cm = cm.previousNamedSibling) {
      if (i > 0 && cm.startPosition.row === members[i - 1].endPosition.row) break; // a trailing comment of the previous member
      lead = cm.startIndex;
    }
    const ls = lineStart(source, lead);
    return ls >= prevEnd ? ls : lead; // two members on one line: split at the member itself
  });
  let headEnd = starts[0];
  while (headEnd > leadStart && /\s/.test(source[headEnd - 1])) headEnd--; // blank lines before the first member are no one's
  out.push({ start: leadStart, end: headEnd, symbols: head, role: c.role });
  members.forEach((m, i) => {
    const limit = i + 1 < members.length ? starts[i + 1] : outer.endIndex;
    let end = Math.min(lineEnd(source, endOf(m)), limit);
    if (i + 1 < members.length && end === starts[i + 1] && source[end - 1] === '\n') end--;
    const last = i + 1 === members.length;
    if (last && /^[\s};,)]*$/.test(source.slice(end, outer.endIndex))) end = outer.endIndex;
    out.push({ start: starts[i], end, symbols: c.memberSymbols(m), role: c.memberRole(m), owner: c.name });
    if (last && end < outer.endIndex) out.push({ start: source[end] === '\n' ? end + 1 : end, end: outer.endIndex, symbols: head, role: c.role });
  });
}

/** Start of the comments (or attributes) directly above a node (no blank line between), else the node's own start. */
export function leadingCommentStart(node: Node, leading: (n: Node) => boolean = isComment): number {
  let start = node.startIndex;
  let row = node.startPosition.row;
  let prev = node.previousNamedSibling;
  while (prev && leading(prev) && prev.endPosition.row >= row - 1) {
    start = prev.startIndex;
    row = prev.startPosition.row;
    prev = prev.previousNamedSibling;
  }
  return start;
}
