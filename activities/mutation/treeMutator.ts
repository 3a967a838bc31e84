import type { Node } from 'web-tree-sitter';
import type { BugType } from '../../schemas/task.ts';
import { FUNCTIONAL_LANGUAGES, type TreeMutationNodes } from '../../core/languages/functional.ts';
import type { CallsLanguage } from '../../schemas/exec.ts';
import type { MutationCandidate } from '../../core/mutation/types.ts';
import { parserForGrammar } from '../languages/grammar.ts';
import { reachableSpans } from '../languages/reachable.ts';
import type { MutateResponse } from './mutator.ts';

/**
 * Mechanical single-edit mutants of JavaScript, TypeScript and Go, found on the tree-sitter tree: the six bug types
 * of infra/python/mutate.py with the same guarantees. Each candidate is one splice of the canonical's text (one
 * contiguous edit, formatting and comments kept); the mutant must parse without an error node, still define the
 * entry function, and an operator swapped in place must leave the tree's shape unchanged (otherwise the whole
 * expression is replaced, parenthesised, so precedence cannot regroup it). Only code the entry function can reach
 * is edited. Failing a test and not being equivalent are verification's to decide (verify.ts), as for Python.
 * Parsing only: the code is never run here.
 */

const ARITH: Record<string, string[]> = { '+': ['-'], '-': ['+'], '*': ['+', '/'], '/': ['*'], '%': ['/'], '**': ['*'] };
const BITWISE: Record<string, string[]> = { '&': ['|'], '|': ['&'], '^': ['|'], '<<': ['>>'], '>>': ['<<'], '>>>': ['>>'], '&^': ['&'] };
const COMPARISON: Record<string, [string, string]> = {
  '<': ['>', 'flip_comparison'], '>': ['<', 'flip_comparison'], '<=': ['>=', 'flip_comparison'], '>=': ['<=', 'flip_comparison'],
  '==': ['!=', 'negate_equality'], '!=': ['==', 'negate_equality'], '===': ['!==', 'negate_equality'], '!==': ['===', 'negate_equality'],
};
const BOUNDARY: Record<string, string> = { '<': '<=', '<=': '<', '>': '>=', '>=': '>' };
const NON_COMMUTATIVE = new Set(['-', '/', '%', '**', '<<', '>>', '>>>']);

interface Edit {
  operator: string;
  bug_type: BugType;
  /** String indices into the canonical, end exclusive. */
  start: number;
  end: number;
  replacement: string;
  /** The mutant's tree must print as the canonical's (an operator token swapped within its precedence class). */
  sameShape?: boolean;
}

export async function enumerateTreeMutants(reqs: readonly { id: string; code: string; function_name: string; language: CallsLanguage }[]): Promise<MutateResponse[]> {
  const out: MutateResponse[] = [];
  for (const r of reqs) out.push(await mutateOne(r.id, r.code, r.function_name, r.language));
  return out;
}

async function mutateOne(id: string, code: string, fn: string, language: CallsLanguage): Promise<MutateResponse> {
  const row = FUNCTIONAL_LANGUAGES[language];
  const nodes = row.mutation;
  const parser = await parserForGrammar(row.grammar);
  // A Go canonical is a file body after `package main`: parsed as the file it becomes.
  const prefix = language === 'go' && !/^\s*package\s/.test(code) ? 'package main\n' : '';
  const parse = (text: string) => parser.parse(prefix + text);
  const tree = parse(code);
  if (!tree || tree.rootNode.hasError) return { id, ok: false, error: 'canonical does not parse' };
  const shift = prefix.length;
  const reach = reachableSpans(tree.rootNode, fn, nodes).map(([s, e]) => [s - shift, e - shift] as const);
  if (!reach.length) return { id, ok: false, error: `canonical does not define ${fn}` };
  const edits: Edit[] = [];
  const text = (n: Node) => code.slice(n.startIndex - shift, n.endIndex - shift);
  const at = (n: Node) => [n.startIndex - shift, n.endIndex - shift] as const;
  const visit = (n: Node) => {
    collect(code, n, nodes, text, at, edits);
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(tree.rootNode);
  const canonicalShape = tree.rootNode.toString();
  // Loops without a counter (`while`, `do`, Go's `for cond {}`): where a mutant most likely never ends, so it is
  // verified last (in_while, as mutate.py marks Python's `while`).
  const loops = tree.rootNode.descendantsOfType(['while_statement', 'do_statement', 'for_statement'])
    .filter((l): l is Node => l !== null && (l.type !== 'for_statement' || (language === 'go' && !l.namedChildren.some((c) => c?.type === 'for_clause' || c?.type === 'range_clause'))))
    .map((l) => at(l));
  tree.delete();
  const seen = new Set<string>([code]);
  const candidates: MutationCandidate[] = [];
  let rejected = 0;
  const lineStarts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') lineStarts.push(i + 1);
  const bytes = (i: number) => Buffer.byteLength(code.slice(0, i), 'utf8');
  for (const e of edits) {
    if (!reach.some(([s, end]) => e.start >= s && e.end <= end)) continue;
    const mutant = code.slice(0, e.start) + e.replacement + code.slice(e.end);
    if (seen.has(mutant)) continue;
    const t = parse(mutant);
    const ok = t && !t.rootNode.hasError && (!e.sameShape || t.rootNode.toString() === canonicalShape) && reachableSpans(t.rootNode, fn, nodes).length > 0;
    t?.delete();
    if (!ok) {
      rejected++;
      continue;
    }
    seen.add(mutant);
    let line = 1;
    while (line < lineStarts.length && lineStarts[line] <= e.start) line++;
    candidates.push({
      operator: e.operator, bug_type: e.bug_type, start: bytes(e.start), end: bytes(e.end), line,
      original: code.slice(e.start, e.end), replacement: e.replacement, code: mutant, in_while: loops.some(([s, end]) => e.start >= s && e.end <= end),
    });
  }
  return { id, ok: true, candidates, rejected_splices: rejected };
}

function precedenceOf(nodes: TreeMutationNodes, op: string): number {
  return nodes.precedence.findIndex((cls) => cls.includes(op));
}

/** The edits one node offers (its children are visited separately). */
function collect(code: string, n: Node, nodes: TreeMutationNodes, text: (n: Node) => string, at: (n: Node) => readonly [number, number], edits: Edit[]): void {
  const [s, e] = at(n);
  if (n.type === nodes.binary) {
    const left = n.childForFieldName('left');
    const right = n.childForFieldName('right');
    const opNode = n.childForFieldName('operator');
    if (!left || !right || !opNode) return;
    const op = opNode.type;
    const [os, oe] = at(opNode);
    const lt = text(left);
    const rt = text(right);
    const swap = (to: string, operator: string, bug_type: BugType) => {
      if (precedenceOf(nodes, to) === precedenceOf(nodes, op)) edits.push({ operator, bug_type, start: os, end: oe, replacement: to, sameShape: true });
      else edits.push({ operator, bug_type, start: s, end: e, replacement: `(${lt} ${to} ${rt})` });
    };
    for (const to of ARITH[op] ?? []) swap(to, 'arith_operator', 'wrong_operator');
    for (const to of BITWISE[op] ?? []) swap(to, 'bitwise_operator', 'wrong_operator');
    if (COMPARISON[op]) swap(COMPARISON[op][0], COMPARISON[op][1], 'wrong_comparison');
    if (BOUNDARY[op]) swap(BOUNDARY[op], 'boundary_shift', 'off_by_one_boundary');
    if (op === '&&' || op === '||') {
      swap(op === '&&' ? '||' : '&&', 'bool_operator', 'wrong_operator');
      // Drop one condition (remove_edge_case_check): the other side alone, parenthesised as the node stood.
      edits.push({ operator: 'drop_condition', bug_type: 'remove_edge_case_check', start: s, end: e, replacement: `(${lt})` });
      edits.push({ operator: 'drop_condition', bug_type: 'remove_edge_case_check', start: s, end: e, replacement: `(${rt})` });
    }
    if (NON_COMMUTATIVE.has(op)) edits.push({ operator: 'swap_operands', bug_type: 'swap_arguments', start: s, end: e, replacement: `(${rt}) ${op} (${lt})` });
  } else if (n.type === nodes.augmented) {
    const opNode = n.childForFieldName('operator') ?? n.children.find((c) => c !== null && /^[^\w\s]+=$/.test(c.type) && c.type !== '=' && c.type !== ':=') ?? null;
    if (!opNode) return;
    const op = opNode.type.slice(0, -1);
    const [os, oe] = at(opNode);
    for (const to of [...(ARITH[op] ?? []), ...(BITWISE[op] ?? [])]) edits.push({ operator: 'aug_operator', bug_type: 'wrong_operator', start: os, end: oe, replacement: `${to}=`, sameShape: true });
  } else if (n.type === nodes.integer) {
    const t = text(n);
    if (!/^\d+$/.test(t)) return;
    const v = Number(t);
    edits.push({ operator: 'constant_shift', bug_type: 'off_by_one', start: s, end: e, replacement: String(v + 1), sameShape: true });
    if (v > 0) edits.push({ operator: 'constant_shift', bug_type: 'off_by_one', start: s, end: e, replacement: String(v - 1), sameShape: true });
  } else if (n.type === nodes.index.type) {
    const idx = n.childForFieldName(nodes.index.field);
    if (!idx || idx.type === nodes.integer) return;
    const [is, ie] = at(idx);
    for (const d of ['+ 1', '- 1']) edits.push({ operator: 'index_shift', bug_type: 'off_by_one', start: is, end: ie, replacement: `(${text(idx)}) ${d}` });
  } else if (n.type === nodes.call) {
    const f = n.childForFieldName('function');
    const args = n.childForFieldName('arguments');
    if (f && nodes.mirrors[text(f)]) edits.push({ operator: 'swap_builtin', bug_type: 'wrong_operator', start: at(f)[0], end: at(f)[1], replacement: nodes.mirrors[text(f)], sameShape: true });
    const list = args?.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment') ?? [];
    for (let i = 0; i + 1 < list.length; i++) {
      const a = list[i];
      const b = list[i + 1];
      if (text(a) === text(b) || a.type === 'spread_element' || b.type === 'spread_element' || a.type === 'variadic_argument' || b.type === 'variadic_argument') continue;
      const [as, ae] = at(a);
      const [bs, be] = at(b);
      const between = text(n).slice(ae - s, bs - s);
      edits.push({ operator: 'swap_call_args', bug_type: 'swap_arguments', start: as, end: be, replacement: `${text(b)}${between}${text(a)}` });
    }
  } else if (n.type === nodes.ifStatement) {
    const cond = n.childForFieldName('condition');
    if (!cond) return;
    // Go's condition is bare, JS's sits in parentheses: negate what is inside them.
    const inner = cond.type === 'parenthesized_expression' && cond.namedChildren[0] ? cond.namedChildren[0] : cond;
    const isCompare = inner.type === nodes.binary && COMPARISON[inner.childForFieldName('operator')?.type ?? ''] !== undefined;
    const isNot = inner.type === 'unary_expression' && inner.childForFieldName('operator')?.type === '!';
    if (!isCompare && !isNot) edits.push({ operator: 'negate_condition', bug_type: 'wrong_comparison', start: at(inner)[0], end: at(inner)[1], replacement: nodes.negate(text(inner)) });
    if (!n.childForFieldName('alternative')) {
      const body = n.childForFieldName('consequence');
      const stmts = body ? flatStatements(body) : [];
      const last = stmts[stmts.length - 1] ?? body;
      if (last && nodes.earlyExits.includes(last.type)) {
        edits.push({ operator: 'remove_guard', bug_type: 'remove_edge_case_check', ...lineCut(code, s, e), replacement: '' });
      }
    }
  }
}

/** A block's statements (Go wraps them in a statement_list). */
function flatStatements(block: Node): Node[] {
  const kids = block.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
  if (kids.length === 1 && kids[0].type === 'statement_list') return flatStatements(kids[0]);
  return kids;
}

/** The statement's span widened to whole lines when it has them to itself (no blank line left behind). */
function lineCut(code: string, s: number, e: number): { start: number; end: number } {
  const ls = code.lastIndexOf('\n', s - 1) + 1;
  const nl = code.indexOf('\n', e);
  const le = nl < 0 ? code.length : nl + 1;
  return code.slice(ls, s).trim() === '' && code.slice(e, le).trim() === '' ? { start: ls, end: le } : { start: s, end: e };
}
