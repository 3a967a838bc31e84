"""The judge's half of a test: which tests the parent can decide, and the decision itself.

A test of the form `assert <expr> <op> <literal>` (or `<literal> <op> <expr>`, or `assert <expr>` /
`assert not <expr>`), with no message or a constant one, is split: the child receives only the
source of `<expr>`, evaluates it and sends back the value as plain data (sandbox_values); the judge, which
never runs candidate code, compares it with the literal. The literal never enters the child's process, so
the candidate cannot read it from memory, and no object the candidate built takes part in the comparison.

Every other test (several statements, pytest.raises, a `check(candidate)` program, a computed expected
value such as `sys.getsizeof(...)`) runs whole in the child and is judged there; its outcome is recorded as
judged by the child.
"""

import ast
import operator

import sandbox_values as values

_OPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
# `is` is only meaningful against singletons: other literals would compare object identity across processes.
_SINGLETONS = (None, True, False)


def _literal(node):
    """(True, value) when `node` is a literal the judge can evaluate without running anything."""
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def split(test_src):
    """A parent-judged plan for one test, or None when the test must be judged in the child.

    Plan: {"expr": source evaluated in the child, "check": (op name, literal, literal_is_left) | ("truth",
    negate), "msg": the constant message as text, or None, "opaque_ok": whether a value of another type may
    cross as an opaque object (identity with None/True/False and truth tests need no data: the truth value
    of such an object is the child's word, as the object itself was the candidate's)}.
    """
    try:
        mod = ast.parse(test_src, mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(mod.body) != 1 or not isinstance(mod.body[0], ast.Assert):
        return None
    node = mod.body[0]
    msg = None
    if node.msg is not None:
        if not isinstance(node.msg, ast.Constant):
            return None
        msg = str(node.msg.value)  # what str(AssertionError(msg)) gives, as the child's classify would see it
    test = node.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = type(test.ops[0])
        right = test.comparators[0]
        for cand, lit_node, lit_left in ((test.left, right, False), (right, test.left, True)):
            ok, lit = _literal(lit_node)
            if not ok or op not in _OPS:
                continue
            if op in (ast.Is, ast.IsNot) and not any(lit is s for s in _SINGLETONS):
                return None
            if _literal(cand)[0]:
                return None  # both sides literal: nothing of the candidate's to judge; the child runs it whole
            # Identity with a singleton needs no data: any other object only has to be reported as "an object".
            return {"expr": ast.unparse(cand), "check": (op.__name__, lit, lit_left), "msg": msg,
                    "opaque_ok": op in (ast.Is, ast.IsNot)}
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return {"expr": ast.unparse(test.operand), "check": ("truth", True), "msg": msg, "opaque_ok": True}
    if isinstance(test, (ast.Call, ast.Name, ast.Subscript, ast.Attribute)):
        return {"expr": ast.unparse(test), "check": ("truth", False), "msg": msg, "opaque_ok": True}
    return None


_OP_BY_NAME = {cls.__name__: fn for cls, fn in _OPS.items()}


def judge(plan, value):
    """The outcome of a parent-judged test whose expression produced `value` (already decoded)."""
    check = plan["check"]
    if isinstance(value, values.Opaque) and not plan.get("opaque_ok"):
        return "ERROR: untrusted value type " + value.type_name
    try:
        if check[0] == "truth":
            ok = bool(value) != check[1]
        else:
            fn = _OP_BY_NAME[check[0]]
            ok = bool(fn(check[1], value) if check[2] else fn(value, check[1]))
    except (TypeError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        return "ERROR: " + type(exc).__name__
    if ok:
        return "pass"
    return "FAIL: " + plan["msg"].replace("\n", " ")[:200] if plan["msg"] else "FAIL"
