"""Independent check of curated expected values: for tasks that the standard library (or a textbook identity)
can answer another way, recompute every test's expected value WITHOUT the canonical and compare.

The curated expected values were produced by running each canonical (data/tasks/curated/authoring/build.py);
this catches a canonical that is internally consistent but computes the wrong thing for its query.
Reads data/tasks/curated/*.jsonl (trusted, shipped data; eval of the literal call arguments is safe here).
Prints JSON: {"checked": {function_name: tests_checked}, "mismatches": [...]}.
"""
import ast
import calendar
import csv
import datetime as dt
import functools
import io
import json
import math
import os
import re
import sys
from pathlib import Path


def _levenshtein(a, b):
    # Plain recursive definition (Wagner-Fischer's recurrence, top-down) instead of the canonical's two-row DP.
    @functools.lru_cache(maxsize=None)
    def d(i, j):
        if i == 0 or j == 0:
            return i + j
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))
    return d(len(a), len(b))


def _primes(n):
    return [p for p in range(2, n + 1) if all(p % q for q in range(2, int(math.isqrt(p)) + 1))]


def _iso_date(text):
    if len(text) != 10:
        return False
    try:
        dt.date.fromisoformat(text)
        return True
    except ValueError:
        return False


def _csv_split(line):
    return next(csv.reader(io.StringIO(line)))


def _ext_gcd_ok(args, got):
    a, b = args
    g, x, y = got
    return g == math.gcd(a, b) and a * x + b * y == g


def _gray_ok(args, got):
    (g,) = args
    return got ^ (got >> 1) == g


def _base_digits_ok(args, got):
    n, base = args
    if base < 2:
        return got == []
    if n == 0:
        return got == [0]
    return all(0 <= d < base for d in got) and got[0] != 0 and functools.reduce(lambda acc, d: acc * base + d, got, 0) == n


# Value references: f(*args) must equal the expected value.
VALUES = {
    'day_of_year': lambda y, m, d: dt.date(y, m, d).timetuple().tm_yday,
    'weekday_number': lambda y, m, d: dt.date(y, m, d).isoweekday() % 7,
    # JDN = proleptic Gregorian ordinal + 1721425 (ordinal 1 = 0001-01-01 = JDN 1721426).
    'julian_day_number': lambda y, m, d: dt.date(y, m, d).toordinal() + 1721425,
    'days_in_month': lambda y, m: calendar.monthrange(y, m)[1] if 1 <= m <= 12 else 0,
    'integer_square_root': lambda n: math.isqrt(n) if n >= 0 else -1,
    'n_choose_k': lambda n, k: math.comb(n, k) if 0 <= k <= n else 0,
    'modular_power': lambda b, e, m: pow(b, e, m),
    'expand_tab_stops': lambda s, n: s.expandtabs(n),
    'count_one_bits': lambda n: bin(n).count('1'),
    'has_odd_parity': lambda n: bin(n).count('1') % 2 == 1,
    'primes_up_to': _primes,
    'levenshtein': _levenshtein,
    'lowest_set_bit_index': lambda n: (n & -n).bit_length() - 1 if n else -1,
    'next_power_of_two': lambda n: next(1 << k for k in range(200) if (1 << k) >= n),
    'is_power_of_four': lambda n: n in {4 ** k for k in range(40)},
    'longest_common_prefix': lambda words: os.path.commonprefix(words),
    'count_overlapping': lambda t, p: len(re.findall('(?=' + re.escape(p) + ')', t)) if p else 0,
    'is_valid_iso_date': _iso_date,
    'split_csv_line': lambda line: _csv_split(line) if line else [''],
    'seconds_to_clock': lambda s: ('-' if s < 0 else '') + '%02d:%02d:%02d' % (abs(s) // 3600, abs(s) // 60 % 60, abs(s) % 60),
    'kth_smallest': lambda xs, k: sorted(xs)[k - 1] if 1 <= k <= len(xs) else None,
    'insertion_sorted': lambda xs: sorted(xs),
    'merge_two_sorted': lambda a, b: sorted(a + b),
    'counting_sort_ints': lambda xs: sorted(xs),
    'sum_proper_divisors': lambda n: sum(d for d in range(1, n) if n % d == 0) if n > 1 else 0,
    'collatz_steps': None,  # filled below (needs a loop)
}


def _collatz(n):
    if n < 1:
        return -1
    steps = 0
    while n != 1:
        n = 3 * n + 1 if n % 2 else n // 2
        steps += 1
    return steps


VALUES['collatz_steps'] = _collatz

# Property references: check(args, got) must hold for the expected value.
PROPERTIES = {
    'extended_gcd': _ext_gcd_ok,
    'gray_to_binary': _gray_ok,
    'to_base_digits': _base_digits_ok,
}


def main(curated_dir):
    checked, mismatches = {}, []
    for f in sorted(Path(curated_dir).glob('*.jsonl')):
        for line in f.read_text(encoding='utf-8').splitlines():
            task = json.loads(line)
            name = task['function_name']
            if name not in VALUES and name not in PROPERTIES:
                continue
            for t in task['tests']['tests']:
                node = ast.parse(t).body[0].test
                call, expected = node.left, node.comparators[0]
                args = [eval(compile(ast.Expression(a), '<arg>', 'eval'), {}) for a in call.args]
                want = eval(compile(ast.Expression(expected), '<expected>', 'eval'), {})
                if name in VALUES:
                    ref = VALUES[name](*args)
                    ok = ref == want and type(ref) is type(want)
                else:
                    ref, ok = '(property)', PROPERTIES[name](args, want)
                if not ok:
                    mismatches.append(f'{f.name} {task["task_id"]}: {t} but reference gives {ref!r}')
                checked[name] = checked.get(name, 0) + 1
    print(json.dumps({'checked': checked, 'mismatches': mismatches}))


if __name__ == '__main__':
    main(sys.argv[1])
