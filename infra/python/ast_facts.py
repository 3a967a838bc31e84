"""Static facts about Python source, with Python's own `ast` (parsing only: nothing here executes input).

stdin: JSON lines, each {"id", "kind": "code", "code"} or {"id", "kind": "tests", "tests": [...], "target"}.
stdout: JSON lines, each {"id", ...facts}. A record that cannot be analysed gets {"id", "error"}.
"""
import ast
import json
import sys


def _syntax(exc):
    return f"{type(exc).__name__}: {getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"


def code_facts(code):
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return {"parses": False, "syntax_error": _syntax(exc), "top_level_functions": []}
    top = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return {"parses": True, "syntax_error": None, "top_level_functions": top}


def _called_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name):
                names.add(fn.id)
            elif isinstance(fn, ast.Attribute):
                names.add(fn.attr)
        # a function passed by name (map(f, xs), check(f)) also exercises it
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
    return names


def test_facts(tests, target):
    out = []
    for t in tests:
        try:
            tree = ast.parse(t)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            out.append({"parses": False, "syntax_error": _syntax(exc), "calls_target": False, "statements": 0})
            continue
        out.append({"parses": True, "syntax_error": None, "calls_target": target in _called_names(tree),
                    "statements": len(tree.body)})
    return {"tests": out}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        rec = json.loads(line)
        try:
            if rec["kind"] == "code":
                facts = code_facts(rec["code"])
            else:
                facts = test_facts(rec["tests"], rec["target"])
        except Exception as exc:  # never lose the batch for one record
            facts = {"error": f"{type(exc).__name__}: {exc}"}
        facts["id"] = rec["id"]
        sys.stdout.write(json.dumps(facts) + "\n")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
