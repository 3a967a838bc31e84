#!/usr/bin/env python3
"""Build data/tasks/curated/<domain>.jsonl from the authoring files next to this script.

Why this exists: expected values in the shipped asserts must come from running the canonical, never from
typing them by hand. Each authoring file `<domain>_tasks.py` (suffixed so that no file here shadows a stdlib
module such as `collections`) defines TASKS, a list of dicts with `name`, `query`,
`code` (the canonical) and `calls` (call expressions). This script runs each canonical with its calls in a
subprocess (trusted, hand-written code), takes repr() of each result (checked to round-trip through eval), and
writes `assert <call> == <repr>` tests. Output is deterministic and written atomically (temp + rename).

Usage: build.py [DOMAIN...]   (default: every domain that has an authoring file)
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent

# Runs in the child: defines the canonical, evaluates each call, checks repr round-trips.
_EVAL = r'''
import json, sys
job = json.load(sys.stdin)
ns = {}
exec(job["code"], ns)
out = []
for c in job["calls"]:
    v = eval(c, dict(ns))
    r = repr(v)
    if eval(r, {}) != v or type(eval(r, {})) is not type(v):
        raise SystemExit(f"repr of {c} does not round-trip: {r}")
    out.append(r)
print(json.dumps(out))
'''


def expected(code: str, calls: list[str]) -> list[str]:
    env = {'PYTHONHASHSEED': '0', 'PATH': '/usr/bin:/bin'}
    p = subprocess.run([sys.executable, '-s', '-c', _EVAL], input=json.dumps({'code': code, 'calls': calls}),
                       capture_output=True, text=True, timeout=60, env=env)
    if p.returncode != 0:
        raise SystemExit(f'canonical failed: {p.stderr.strip()[-1500:]}')
    return json.loads(p.stdout)


def load(domain: str) -> list[dict]:
    spec = importlib.util.spec_from_file_location(f'curated_{domain}', HERE / f'{domain}_tasks.py')
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.TASKS


def build(domain: str) -> int:
    records = []
    for i, t in enumerate(load(domain), 1):
        code = textwrap.dedent(t['code']).strip('\n') + '\n'
        try:
            exp = expected(code, t['calls'])
        except SystemExit as e:
            raise SystemExit(f'{domain}.py task {i} ({t["name"]}): {e}') from None
        records.append({
            'task_id': f'cur_{domain}_{i:02d}',
            'query': t['query'],
            'function_name': t['name'],
            'domain': domain,
            'canonical': code,
            'tests': {'kind': 'asserts', 'tests': [f'assert {c} == {r}' for c, r in zip(t['calls'], exp)]},
            'distractors': [],
            'source': {'dataset': 'curated', 'ref': f'data/tasks/curated/authoring/{domain}_tasks.py'},
        })
    text = ''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in records)
    fd, tmp = tempfile.mkstemp(dir=OUT, prefix=f'.{domain}.', suffix='.tmp')
    with os.fdopen(fd, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(tmp, OUT / f'{domain}.jsonl')
    return len(records)


if __name__ == '__main__':
    doms = sys.argv[1:] or sorted(p.name[:-len('_tasks.py')] for p in HERE.glob('*_tasks.py'))
    for d in doms:
        print(f'{d}: {build(d)} tasks')
