"""Mechanical single-edit mutants of Python source, located with `ast` and applied as byte splices.

Trusted helper: it only PARSES the code it is given (ast.parse), never executes it. Batch protocol: one JSON
request per stdin line, one JSON response per stdout line, in order.

  {"op": "analyze", "id": ..., "code": ..., "tests": [...]}
      -> {"id", "ok", "error"?, "defined": [top-level def/class names], "calls": [[names called in test i]]}
  {"op": "mutate", "id": ..., "code": ..., "function_name": ...}
      -> {"id", "ok", "error"?, "candidates": [{operator, bug_type, start, end, line, original, replacement,
          code, in_while}], "rejected_splices": n}

Why a byte splice and not ast.unparse: a mutant must differ from the canonical only inside one span, so
comments, blank lines and formatting survive and the variant cannot be told apart by formatting alone.
Every splice is checked: the mutant must parse to exactly the canonical's tree with the target node replaced
by the intended node (so a precedence or parenthesis slip is caught and the candidate dropped, never emitted
with a wrong label). Offsets are UTF-8 byte offsets into the code as given.
"""

from __future__ import annotations

import ast
import bisect
import copy
import json
import re
import sys

# ---------------------------------------------------------------------------------------------- operator maps
# One or two replacements per operator; kept small because every candidate costs an execution to verify.
ARITH = {
    ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Add, ast.FloorDiv], ast.Div: [ast.Mult, ast.FloorDiv],
    ast.FloorDiv: [ast.Div, ast.Mult], ast.Mod: [ast.FloorDiv], ast.Pow: [ast.Mult],
}
BITWISE = {
    ast.BitAnd: [ast.BitOr], ast.BitOr: [ast.BitAnd], ast.BitXor: [ast.BitOr],
    ast.LShift: [ast.RShift], ast.RShift: [ast.LShift],
}
OP_TEXT = {
    ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.Div: '/', ast.FloorDiv: '//', ast.Mod: '%', ast.Pow: '**',
    ast.BitAnd: '&', ast.BitOr: '|', ast.BitXor: '^', ast.LShift: '<<', ast.RShift: '>>', ast.MatMult: '@',
    ast.And: 'and', ast.Or: 'or',
    ast.Lt: '<', ast.Gt: '>', ast.LtE: '<=', ast.GtE: '>=', ast.Eq: '==', ast.NotEq: '!=',
    ast.Is: 'is', ast.IsNot: 'is not', ast.In: 'in', ast.NotIn: 'not in',
}
# Operands whose order matters (swap_arguments on an operator).
NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)
# wrong_comparison: direction and negation flips; off_by_one_boundary: strictness flips.
COMPARISON = {
    ast.Lt: (ast.Gt, 'flip_comparison'), ast.Gt: (ast.Lt, 'flip_comparison'),
    ast.LtE: (ast.GtE, 'flip_comparison'), ast.GtE: (ast.LtE, 'flip_comparison'),
    ast.Eq: (ast.NotEq, 'negate_equality'), ast.NotEq: (ast.Eq, 'negate_equality'),
    ast.Is: (ast.IsNot, 'negate_identity'), ast.IsNot: (ast.Is, 'negate_identity'),
    ast.In: (ast.NotIn, 'negate_membership'), ast.NotIn: (ast.In, 'negate_membership'),
}
BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
# wrong_operator beyond operator tokens: the named operation swapped for its mirror (min for max, upper for
# lower, ...). Without these, ~10% of MBPP canonicals (`return min(xs)`, `s.upper()`) have no candidate at all.
MIRROR_BUILTINS = {'min': 'max', 'max': 'min', 'any': 'all', 'all': 'any'}
MIRROR_METHODS = {
    'upper': 'lower', 'lower': 'upper', 'isupper': 'islower', 'islower': 'isupper',
    'startswith': 'endswith', 'endswith': 'startswith', 'lstrip': 'rstrip', 'rstrip': 'lstrip',
    'find': 'rfind', 'rfind': 'find', 'index': 'rindex', 'rindex': 'index', 'ljust': 'rjust', 'rjust': 'ljust',
    'nlargest': 'nsmallest', 'nsmallest': 'nlargest', 'floor': 'ceil', 'ceil': 'floor',
    'bisect_left': 'bisect_right', 'bisect_right': 'bisect_left', 'isdigit': 'isalpha', 'isalpha': 'isdigit',
    'search': 'match', 'match': 'search', 'keys': 'values', 'values': 'keys', 'title': 'capitalize',
    'capitalize': 'title', 'ascii_lowercase': 'ascii_uppercase', 'ascii_uppercase': 'ascii_lowercase',
}
# Calls whose sequence argument is consumed whole: `sum(xs)` -> `sum(xs[1:])` is the loop-skips-an-element bug
# without a loop in sight, and one-line MBPP canonicals (`return sum(lst)`, `''.join(t)`) have no other site.
# Value: which positional arguments are sequences (None: all of them).
SEQUENCE_CONSUMERS = {
    'sum': (0,), 'sorted': (0,), 'reversed': (0,), 'len': (0,), 'set': (0,), 'frozenset': (0,), 'tuple': (0,),
    'list': (0,), 'enumerate': (0,), 'any': (0,), 'all': (0,), 'Counter': (0,), 'min': (0,), 'max': (0,),
    'zip': None, 'map': (1, 2), 'filter': (1,),
}
# Returned values that are never numbers: result_shift (`return x` -> `return x + 1`) skips them.
NON_NUMERIC_CALLS = {'bool', 'isinstance', 'all', 'any', 'str', 'list', 'tuple', 'set', 'dict', 'sorted', 'repr',
                     'frozenset', 'zip', 'map', 'filter', 'reversed', 'enumerate', 'Counter', 'join', 'format'}
NON_NUMERIC = (ast.Compare, ast.BoolOp, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp,
               ast.DictComp, ast.GeneratorExp, ast.JoinedStr, ast.Lambda, ast.Constant)
# Regular-expression edits inside a pattern literal (only in code that imports `re`): a shorthand class for its
# complement (`\w` -> `\W`, the pattern's `in` -> `not in`), a quantifier's minimum moved by one (`+` <-> `*`)
# and an anchor dropped (`^...$`: the whole-string check removed).
REGEX_COMPLEMENT = {'w': 'W', 'W': 'w', 'd': 'D', 'D': 'd', 's': 'S', 'S': 's'}


def regex_edits(pattern: str) -> list[tuple[int, int, str, str, str]]:
    """(start, end, replacement, operator, bug_type) edits of a regex pattern, by character index. Escapes and
    character classes are skipped as units, so a `+` inside `[+-]` or after a backslash is never touched."""
    out = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == '\\' and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt in REGEX_COMPLEMENT:
                out.append((i + 1, i + 2, REGEX_COMPLEMENT[nxt], 'regex_complement', 'wrong_comparison'))
            i += 2
            continue
        if in_class:
            if ch == ']':
                in_class = False
            i += 1
            continue
        if ch == '[':
            in_class = True
            if pattern[i + 1:i + 2] == '^':
                out.append((i + 1, i + 2, '', 'regex_complement', 'wrong_comparison'))
            # `[]...]` and `[^]...]`: a leading `]` is a literal, not the end of the class.
            i += 3 if pattern[i + 1:i + 3] == '^]' else 2 if pattern[i + 1:i + 2] == ']' else 1
            continue
        prev = pattern[i - 1] if i else ''
        if ch in '+*' and prev and prev not in '(|?+*{}':
            out.append((i, i + 1, '*' if ch == '+' else '+', 'regex_quantifier', 'off_by_one'))
        elif ch == '^' and i == 0 and n > 1:
            out.append((0, 1, '', 'regex_anchor', 'remove_edge_case_check'))
        elif ch == '$' and i == n - 1 and n > 1:
            out.append((i, n, '', 'regex_anchor', 'remove_edge_case_check'))
        i += 1
    return out


# Expressions that cannot be sliced (or where a slice would be a second slice): never offered to seq_bound.
UNSLICEABLE = (ast.Constant, ast.GeneratorExp, ast.SetComp, ast.DictComp, ast.Set, ast.Dict, ast.Starred,
               ast.Lambda, ast.JoinedStr)
EARLY_EXIT = (ast.Return, ast.Raise, ast.Continue, ast.Break)

# An operator token in the gap between two operands; the gap may also hold parentheses, whitespace,
# comments and line continuations, which the scanner skips.
OP_TOKEN = re.compile(rb'not\s+in\b|is\s+not\b|in\b|is\b|and\b|or\b|\*\*=?|//=?|<<=?|>>=?|<=|>=|==|!=|[-+*/%@&|^]=?|[<>]')
SKIP = re.compile(rb'(?:\s|[()]|\\\n|#[^\n]*)*')


class Source:
    """The code as bytes, with (line, byte column) <-> byte offset conversion (ast columns are UTF-8 bytes)."""

    def __init__(self, code: str):
        self.code = code
        self.data = code.encode('utf-8')
        self.line_starts = [0]
        for i, b in enumerate(self.data):
            if b == 0x0A:
                self.line_starts.append(i + 1)

    def offset(self, line: int, col: int) -> int:
        return self.line_starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode('utf-8')

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def find_op(self, start: int, end: int) -> tuple[int, int] | None:
        """The operator token in data[start:end], skipping parentheses, whitespace and comments around it."""
        pos = SKIP.match(self.data, start, end).end()
        m = OP_TOKEN.match(self.data, pos, end)
        if not m:
            return None
        rest = SKIP.match(self.data, m.end(), end).end()
        return (m.start(), m.end()) if rest == end else None


def index_nodes(tree: ast.AST) -> list[tuple[ast.AST, ast.AST | None, str | None, int | None, bool, bool]]:
    """Deterministic pre-order list of (node, parent, field, list index, inside a function, inside a while).

    Annotations and decorators are skipped: mutating a type hint changes nothing at run time."""
    out = []

    def visit(node, parent, field, idx, in_func, in_while):
        out.append((node, parent, field, idx, in_func, in_while))
        child_func = in_func or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        child_while = in_while or isinstance(node, ast.While)
        for name, value in ast.iter_fields(node):
            if name in ('annotation', 'returns', 'decorator_list', 'type_comment'):
                continue
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        visit(item, node, name, i, child_func, child_while)
            elif isinstance(value, ast.AST):
                visit(value, node, name, None, child_func, child_while)

    visit(tree, None, None, None, False, False)
    return out


def same(a, b) -> bool:
    """Structural equality of two ASTs, positions ignored (what comparing ast.dump strings does, ~4x faster:
    no string building, and it stops at the first difference). An explicit stack rather than recursion through
    generators: this comparison is most of an enumeration's time (one per candidate splice), and the
    generator-per-node version took about twice as long for the same answer."""
    stack = [(a, b)]
    pop, push, extend = stack.pop, stack.append, stack.extend
    AST = ast.AST
    while stack:
        x, y = pop()
        t = type(x)
        if t is not type(y):
            return False
        if isinstance(x, AST):
            for f in x._fields:
                push((getattr(x, f, None), getattr(y, f, None)))
        elif t is list:
            if len(x) != len(y):
                return False
            extend(zip(x, y))
        elif x != y:
            return False
    return True


def clone(node):
    """A structural copy of an AST (its fields only, positions dropped): all an expected node needs, since `same`
    ignores positions; copy.deepcopy, which also copies every position attribute, was a sixth of the run."""
    if isinstance(node, ast.AST):
        new = type(node).__new__(type(node))
        for f in node._fields:
            setattr(new, f, clone(getattr(node, f, None)))
        return new
    if isinstance(node, list):
        return [clone(x) for x in node]
    return node


def matches_replaced(mutant: ast.AST, tree: ast.AST, entry: tuple, new_node: ast.AST | None) -> bool:
    """Whether `mutant` equals `tree` with the node of index entry `entry` replaced by `new_node` (None: removed
    from its statement list). Swapped into the tree in place and restored: a deep copy per candidate cost more
    than everything else together."""
    node, parent, field, idx = entry[:4]
    if idx is None:
        setattr(parent, field, new_node)
        try:
            return same(mutant, tree)
        finally:
            setattr(parent, field, node)
    seq = getattr(parent, field)
    if new_node is None:
        del seq[idx]
    else:
        seq[idx] = new_node
    try:
        return same(mutant, tree)
    finally:
        if new_node is None:
            seq.insert(idx, node)
        else:
            seq[idx] = node


def is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


class Mutator:
    def __init__(self, code: str, function_name: str):
        self.src = Source(code)
        self.tree = ast.parse(code)
        self.function_name = function_name
        self.nodes = index_nodes(self.tree)
        self.index = {id(entry[0]): i for i, entry in enumerate(self.nodes)}
        # Names the code binds itself: a local `min` is not the builtin.
        self.bound_names = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        self.bound_names |= {n.arg for n in ast.walk(self.tree) if isinstance(n, ast.arg)}
        self.bound_names |= {n.name for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))}
        self.bound_names |= {(a.asname or a.name) for n in ast.walk(self.tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        self.uses_re = any(isinstance(n, ast.Import) and any(a.name == 're' for a in n.names)
                           or isinstance(n, ast.ImportFrom) and n.module == 're' for n in ast.walk(self.tree))
        self.candidates: list[dict] = []
        self.seen_code: set[str] = {code}
        self.rejected = 0

    # ------------------------------------------------------------------------------------------ plumbing
    def emit(self, k: int, operator: str, bug_type: str, options: list[tuple[int, int, str]],
             expected: ast.AST | None) -> None:
        """Try each (start, end, replacement) splice in order; keep the first whose mutant parses to the
        canonical tree with node k replaced by `expected` (None: node k removed from its statement list).
        Later options are fallback spellings, e.g. the whole node parenthesised when a token-only edit would
        regroup the expression by precedence."""
        for start, end, rep in options:
            mutant = (self.src.data[:start] + rep.encode('utf-8') + self.src.data[end:]).decode('utf-8')
            try:
                tree = ast.parse(mutant)
            except (SyntaxError, ValueError, RecursionError):
                continue
            if not matches_replaced(tree, self.tree, self.nodes[k], expected):
                continue
            if mutant in self.seen_code or not defines(tree, self.function_name):
                return
            self.seen_code.add(mutant)
            self.candidates.append({
                'operator': operator, 'bug_type': bug_type, 'start': start, 'end': end,
                'line': self.src.line_of(start), 'original': self.src.text(start, end), 'replacement': rep,
                'code': mutant, 'in_while': self.nodes[k][5],
            })
            return
        self.rejected += 1

    def op_span(self, left: ast.AST, right: ast.AST) -> tuple[int, int] | None:
        return self.src.find_op(self.src.span(left)[1], self.src.span(right)[0])

    # ------------------------------------------------------------------------------------------ operators
    def run(self) -> list[dict]:
        for k, (node, parent, field, idx, in_func, _) in enumerate(self.nodes):
            if isinstance(node, ast.Constant):
                self.constant(k, node, parent)
            elif isinstance(node, ast.BinOp):
                self.binop(k, node)
            elif isinstance(node, ast.AugAssign):
                self.augassign(k, node)
            elif isinstance(node, ast.BoolOp):
                self.boolop(k, node)
            elif isinstance(node, ast.Compare):
                self.compare(k, node)
            elif isinstance(node, ast.Call):
                self.call(k, node)
            elif isinstance(node, ast.Slice):
                for f in ('lower', 'upper'):
                    bound = getattr(node, f)
                    if bound is not None and not is_int(bound):
                        self.bound(bound, 'slice_bound')
            elif isinstance(node, ast.If) and in_func:
                self.remove_guard(k, node, parent, field)
                self.negate_test(node.test)
            elif isinstance(node, (ast.While, ast.IfExp)):
                self.negate_test(node.test)
            elif isinstance(node, ast.Name):
                self.mirror_builtin(k, node)
            elif isinstance(node, ast.Attribute):
                self.mirror_method(k, node)
            elif isinstance(node, (ast.For, ast.comprehension)):
                self.seq_bound(node.iter)
                for test in getattr(node, 'ifs', ()):
                    self.negate_test(test)
            elif isinstance(node, ast.Return) and node.value is not None:
                self.seq_bound(node.value)
                self.result_shift(node.value)
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                self.remove_not(k, node)
            elif isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load):
                self.swap_neighbours(k, node, 'elts', 'swap_items')
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                index = node.slice
                if not isinstance(index, (ast.Slice, ast.Tuple, ast.Constant)) and not (
                        isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant)):
                    self.bound(index, 'index_shift')
        return self.candidates

    def mirror_builtin(self, k, node):
        new = MIRROR_BUILTINS.get(node.id)
        if new is None or not isinstance(node.ctx, ast.Load) or node.id in self.bound_names:
            return
        s, e = self.src.span(node)
        self.emit(k, 'swap_builtin', 'wrong_operator', [(s, e, new)], ast.Name(id=new, ctx=ast.Load()))

    def mirror_method(self, k, node):
        new = MIRROR_METHODS.get(node.attr)
        if new is None or not isinstance(node.ctx, ast.Load):
            return
        e = self.src.span(node)[1]
        s = e - len(node.attr.encode('utf-8'))
        if self.src.data[s:e] != node.attr.encode('utf-8'):
            return
        expected = clone(node)
        expected.attr = new
        self.emit(k, 'swap_method', 'wrong_operator', [(s, e, new)], expected)

    def constant(self, k, node, parent):
        if type(node.value) is str:
            self.string_literal(k, node, parent)
        elif type(node.value) is bool:
            s, e = self.src.span(node)
            new = not node.value
            self.emit(k, 'flip_boolean', 'wrong_comparison', [(s, e, str(new))], ast.Constant(value=new))
        elif type(node.value) is int:
            self.int_constant(k, node)

    def int_constant(self, k, node):
        # `-1` is UnaryOp(USub, 1): shifting the 1 is still a +-1 change of the written number.
        s, e = self.src.span(node)
        for delta in (1, -1):
            rep = str(node.value + delta)
            self.emit(k, 'int_constant', 'off_by_one', [(s, e, rep), (s, e, f'({rep})')],
                      ast.parse(rep, mode='eval').body)

    def bound(self, bound, operator):
        """An expression +-1: `b` -> `b + 1` / `b - 1` (a range() argument, a slice bound, an index, a variable
        passed to a call, a returned value)."""
        k = self.index[id(bound)]
        s, e = self.src.span(bound)
        text = self.src.text(s, e)
        for op, sign in ((ast.Add, '+'), (ast.Sub, '-')):
            expected = ast.BinOp(left=clone(bound), op=op(), right=ast.Constant(1))
            self.emit(k, operator, 'off_by_one',
                      [(s, e, f'{text} {sign} 1'), (s, e, f'({text}) {sign} 1'), (s, e, f'(({text}) {sign} 1)')],
                      expected)

    def string_literal(self, k, node, parent):
        """Edits inside a string literal: a number written in it +-1 (a regex quantifier `\\w{4,}`, a format
        width), and regex_edits when the code imports `re`. Only literals whose source text is their value (no
        escapes to interpret; raw strings qualify), so a character of the source is a character of the value;
        docstrings and f-string parts are left alone."""
        if isinstance(parent, (ast.Expr, ast.JoinedStr)):
            return
        s, e = self.src.span(node)
        text = self.src.text(s, e)
        m = re.match(r'([rRuU]{0,2})(\'\'\'|"""|\'|")', text)
        if not m or not text.endswith(m.group(2)) or len(text) < len(m.group(0)) + len(m.group(2)):
            return
        body = text[len(m.group(0)): len(text) - len(m.group(2))]
        if body != node.value:
            return
        head = len(m.group(0).encode('utf-8'))
        for d in re.finditer(r'\d+', body):
            digits = d.group(0)
            if len(digits) > 1 and digits.startswith('0'):
                continue
            start = s + head + len(body[:d.start()].encode('utf-8'))
            for delta in (1, -1):
                value = int(digits) + delta
                if value < 0:
                    continue
                new = body[:d.start()] + str(value) + body[d.end():]
                self.emit(k, 'string_digit', 'off_by_one', [(start, start + len(digits), str(value))], ast.Constant(value=new))
        if not self.uses_re:
            return
        for a, b, rep, operator, bug_type in regex_edits(body):
            start = s + head + len(body[:a].encode('utf-8'))
            end = start + len(body[a:b].encode('utf-8'))
            self.emit(k, operator, bug_type, [(start, end, rep)], ast.Constant(value=body[:a] + rep + body[b:]))

    def seq_bound(self, seq):
        """A sequence consumed whole loses its first or last element: `for x in xs` -> `for x in xs[1:]` /
        `xs[:-1]` (the loop that skips one). Applied to loop and comprehension iterables, the sequence argument
        of SEQUENCE_CONSUMERS and a returned value; ranges have range_bound, and non-sequences crash, which
        verification discards."""
        if isinstance(seq, UNSLICEABLE) or (isinstance(seq, ast.Subscript) and isinstance(seq.slice, ast.Slice)):
            return
        if isinstance(seq, ast.Call) and isinstance(seq.func, ast.Name) and seq.func.id == 'range':
            return
        k = self.index[id(seq)]
        s, e = self.src.span(seq)
        text = self.src.text(s, e)
        for rep, sl in (('[1:]', ast.Slice(lower=ast.Constant(1))),
                        ('[:-1]', ast.Slice(upper=ast.UnaryOp(op=ast.USub(), operand=ast.Constant(1))))):
            expected = ast.Subscript(value=clone(seq), slice=sl, ctx=ast.Load())
            self.emit(k, 'seq_bound', 'off_by_one', [(s, e, f'{text}{rep}'), (s, e, f'({text}){rep}')], expected)

    def result_shift(self, value):
        """The returned number off by one: `return area` -> `return area + 1` / `- 1`. Skips values that are
        never numbers (comparisons, displays, strings, calls that build collections); an int literal already
        has int_constant."""
        if isinstance(value, NON_NUMERIC) or (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)):
            return
        if isinstance(value, ast.Call):
            f = value.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in NON_NUMERIC_CALLS:
                return
        self.bound(value, 'result_shift')

    def negate_test(self, test):
        """`if c:` -> `if not c:` for a test without a comparison operator to flip (`if re.search(...)`,
        `while stack`): the truth-test form of `==` -> `!=`. A test that is already `not c` gets remove_not."""
        if isinstance(test, ast.Compare) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            return
        k = self.index[id(test)]
        s, e = self.src.span(test)
        text = self.src.text(s, e)
        expected = ast.UnaryOp(op=ast.Not(), operand=clone(test))
        self.emit(k, 'negate_condition', 'wrong_comparison',
                  [(s, e, f'not {text}'), (s, e, f'not ({text})'), (s, e, f'(not ({text}))')], expected)

    def remove_not(self, k, node):
        s, e = self.src.span(node)
        o_s, o_e = self.src.span(node.operand)
        text = self.src.text(o_s, o_e)
        # First what follows `not` as written (the operand's own parentheses kept), then bare, then parenthesised.
        options = [(s, e, self.src.text(s, e)[3:].strip()), (s, e, text), (s, e, f'({text})')]
        self.emit(k, 'remove_not', 'wrong_comparison', options, clone(node.operand))

    def swap_neighbours(self, k, node, field, operator):
        """Two neighbouring items of node.<field> change places: call arguments (`f(a, b)` -> `f(b, a)`), or a
        tuple or list display (`return (a, b)` -> `(b, a)`, `x, y = y, x % y` -> `x, y = x % y, y`)."""
        items = getattr(node, field)
        for i in range(len(items) - 1):
            a, b = items[i], items[i + 1]
            if isinstance(a, ast.Starred) or isinstance(b, ast.Starred) or same(a, b):
                continue
            a_s, a_e = self.src.span(a)
            b_s, b_e = self.src.span(b)
            rep = self.src.text(b_s, b_e) + self.src.text(a_e, b_s) + self.src.text(a_s, a_e)
            expected = clone(node)
            swapped = getattr(expected, field)
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            self.emit(k, operator, 'swap_arguments', [(a_s, b_e, rep)], expected)

    def binop(self, k, node):
        ops = self.op_span(node.left, node.right)
        if ops is None:
            return
        os_, oe = ops
        s, e = self.src.span(node)
        table, operator = (ARITH, 'arith_operator') if type(node.op) in ARITH else (BITWISE, 'bitwise_operator')
        for new_op in table.get(type(node.op), []):
            new_text = OP_TEXT[new_op]
            expected = ast.BinOp(left=clone(node.left), op=new_op(), right=clone(node.right))
            whole = self.src.text(s, os_) + new_text + self.src.text(oe, e)
            self.emit(k, operator, 'wrong_operator', [(os_, oe, new_text), (s, e, f'({whole})')], expected)
        if isinstance(node.op, NON_COMMUTATIVE):
            # The BinOp's span includes its operands' own parentheses, so the two sides move intact.
            left_text, right_text = self.src.text(s, os_), self.src.text(oe, e)
            lt, rt = left_text.rstrip(), right_text.lstrip()
            lws, rws = left_text[len(lt):], right_text[: len(right_text) - len(rt)]
            op_text = self.src.text(os_, oe)
            expected = ast.BinOp(left=clone(node.right), op=clone(node.op), right=clone(node.left))
            self.emit(k, 'swap_operands', 'swap_arguments',
                      [(s, e, f'{rt}{lws}{op_text}{rws}{lt}'), (s, e, f'({rt}){lws}{op_text}{rws}({lt})'),
                       (s, e, f'(({rt}){lws}{op_text}{rws}({lt}))')], expected)

    def augassign(self, k, node):
        ops = self.src.find_op(self.src.span(node.target)[1], self.src.span(node.value)[0])
        if ops is None:
            return
        os_, oe = ops
        table = ARITH if type(node.op) in ARITH else BITWISE
        for new_op in table.get(type(node.op), []):
            expected = clone(node)
            expected.op = new_op()
            self.emit(k, 'aug_operator', 'wrong_operator', [(os_, oe, OP_TEXT[new_op] + '=')], expected)

    def boolop(self, k, node):
        s, e = self.src.span(node)
        vals = node.values
        gaps = [self.op_span(a, b) for a, b in zip(vals, vals[1:])]
        if any(g is None for g in gaps):
            return
        # and <-> or on the whole test (every connective of this node: one logical edit, one span).
        new_op = ast.Or if isinstance(node.op, ast.And) else ast.And
        pieces, pos = [], s
        for os_, oe in gaps:
            pieces += [self.src.text(pos, os_), OP_TEXT[new_op]]
            pos = oe
        pieces.append(self.src.text(pos, e))
        rep = ''.join(pieces)
        self.emit(k, 'bool_operator', 'wrong_operator', [(s, e, rep), (s, e, f'({rep})')],
                  ast.BoolOp(op=new_op(), values=clone(vals)))
        # Drop one condition (remove_edge_case_check). A value's own parentheses sit in the gaps next to it:
        # '(' after the previous operator, ')' before the next one.
        def end_with_parens(j):  # end of value j including its closing parens
            if j == len(vals) - 1:
                return e
            ve = self.src.span(vals[j])[1]
            return ve + len(self.src.data[ve:gaps[j][0]].rstrip())

        for i in range(len(vals)):
            rest = [clone(v) for j, v in enumerate(vals) if j != i]
            expected = rest[0] if len(rest) == 1 else ast.BoolOp(op=clone(node.op), values=rest)
            if i == 0:
                oe = gaps[0][1]
                region = self.src.data[oe:self.src.span(vals[1])[0]]
                cut = (s, oe + len(region) - len(region.lstrip()))
            else:
                cut = (end_with_parens(i - 1), end_with_parens(i))
            self.emit(k, 'drop_condition', 'remove_edge_case_check', [(cut[0], cut[1], '')], expected)

    def compare(self, k, node):
        prev = node.left
        for i, (op, right) in enumerate(zip(node.ops, node.comparators)):
            ops = self.op_span(prev, right)
            prev = right
            if ops is None:
                continue
            os_, oe = ops
            flips = []
            if type(op) in COMPARISON:
                new_op, operator = COMPARISON[type(op)]
                flips.append((new_op, operator, 'wrong_comparison'))
            if type(op) in BOUNDARY:
                flips.append((BOUNDARY[type(op)], 'boundary_shift', 'off_by_one_boundary'))
            for new_op, operator, bug_type in flips:
                expected = clone(node)
                expected.ops[i] = new_op()
                self.emit(k, operator, bug_type, [(os_, oe, OP_TEXT[new_op])], expected)

    def call(self, k, node):
        if isinstance(node.func, ast.Name) and node.func.id == 'range':
            for arg in node.args:
                if not is_int(arg) and not isinstance(arg, ast.Starred):
                    self.bound(arg, 'range_bound')
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
        consumer = name in SEQUENCE_CONSUMERS and not (isinstance(node.func, ast.Name) and name in self.bound_names)
        positions = SEQUENCE_CONSUMERS[name] if consumer else ()
        if name in ('min', 'max') and len(node.args) != 1:
            positions = ()  # min(a, b) compares scalars
        if name == 'join' and isinstance(node.func, ast.Attribute) and len(node.args) == 1:
            positions = (0,)
        for i, arg in enumerate(node.args):
            if positions is None or i in positions:
                self.seq_bound(arg)
            elif isinstance(arg, ast.Name) and name != 'range':
                # A variable handed to any other call: one too many or too few (`nlargest(n, xs)`), or, for a
                # sequence, one element short; whichever the value is not crashes and is discarded.
                self.bound(arg, 'arg_shift')
                self.seq_bound(arg)
        self.swap_neighbours(k, node, 'args', 'swap_call_args')

    def remove_guard(self, k, node, parent, field):
        """Delete an `if` without else: a guard whose body ends in an early exit (return/raise/continue/break),
        or a conditional block that handles a special case in place (`if c_num: stack.append(c_num)`)."""
        if node.orelse:
            return
        operator = 'remove_guard' if isinstance(node.body[-1], EARLY_EXIT) else 'remove_conditional'

        s, e = self.src.span(node)
        line_start = self.src.line_starts[node.lineno - 1]
        if self.src.data[line_start:s].strip():
            return  # shares its line with other code (e.g. after a `;`): no whole-line cut
        after = self.src.data[e:]
        nl = after.find(b'\n')
        tail = (after if nl < 0 else after[:nl]).strip()
        if tail and not tail.startswith(b'#'):
            return
        cut_e = e + (len(after) if nl < 0 else nl + 1)
        is_elif = isinstance(parent, ast.If) and field == 'orelse'
        if len(getattr(parent, field)) == 1 and not is_elif:
            indent = self.src.text(line_start, s)
            self.emit(k, operator, 'remove_edge_case_check', [(line_start, cut_e, f'{indent}pass\n')], ast.Pass())
        else:
            self.emit(k, operator, 'remove_edge_case_check', [(line_start, cut_e, '')], None)


def defines(tree: ast.Module, name: str) -> bool:
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in tree.body)


def called_names(test: str) -> list[str]:
    """Names called in a test, in source order (f(...) and obj.f(...) both give 'f')."""
    tree = ast.parse(test)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    out: list[str] = []
    for c in calls:
        name = c.func.id if isinstance(c.func, ast.Name) else c.func.attr if isinstance(c.func, ast.Attribute) else None
        if name and name not in out:
            out.append(name)
    return out


def handle(req: dict) -> dict:
    rid = req.get('id')
    try:
        op = req['op']
        code = req['code']
        if op == 'analyze':
            try:
                tree = ast.parse(code)
            except SyntaxError as e:
                return {'id': rid, 'ok': False, 'error': f'code: SyntaxError: {e.msg} (line {e.lineno})'}
            defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
            calls = []
            for i, t in enumerate(req.get('tests', [])):
                try:
                    calls.append(called_names(t))
                except SyntaxError as e:
                    return {'id': rid, 'ok': False, 'error': f'tests[{i}]: SyntaxError: {e.msg}', 'defined': defined}
            return {'id': rid, 'ok': True, 'defined': defined, 'calls': calls}
        if op == 'mutate':
            try:
                m = Mutator(code, req['function_name'])
            except SyntaxError as e:
                return {'id': rid, 'ok': False, 'error': f'canonical: SyntaxError: {e.msg} (line {e.lineno})'}
            if not defines(m.tree, req['function_name']):
                return {'id': rid, 'ok': False, 'error': f"canonical: does not define function '{req['function_name']}'"}
            cands = m.run()
            return {'id': rid, 'ok': True, 'candidates': cands, 'rejected_splices': m.rejected}
        return {'id': rid, 'ok': False, 'error': f'unknown op {op!r}'}
    except Exception as e:  # one bad record must not end the batch
        return {'id': rid, 'ok': False, 'error': f'{type(e).__name__}: {e}'}


def main() -> None:
    sys.setrecursionlimit(10000)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        out.write(json.dumps(handle(json.loads(line)), ensure_ascii=False) + '\n')
        out.flush()


if __name__ == '__main__':
    main()
