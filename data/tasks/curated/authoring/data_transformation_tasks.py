"""Curated tasks: data transformation. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='flatten_dict_keys',
        query='Flatten a nested dictionary into a single level, joining nested keys with a separator; '
              'empty nested dictionaries are kept as values.',
        code='''
            def flatten_dict_keys(d, sep='.', prefix=''):
                out = {}
                for k, v in d.items():
                    key = k if prefix == '' else prefix + sep + k
                    if isinstance(v, dict) and v:
                        out.update(flatten_dict_keys(v, sep, key))
                    else:
                        out[key] = v
                return out
        ''',
        calls=["flatten_dict_keys({'a': 1, 'b': {'c': 2, 'd': {'e': 3}}})", 'flatten_dict_keys({})',
               "flatten_dict_keys({'a': {}})", "flatten_dict_keys({'a': {'b': 1}}, '/')",
               "flatten_dict_keys({'x': 0, 'y': None})", "flatten_dict_keys({'a': {'b': {'c': {}}}}, '_')",
               "flatten_dict_keys({'k': [1, 2], 'm': {'n': 'v'}})"],
    ),
    dict(
        name='compress_runs',
        query='Run-length encode a string as count followed by character, e.g. "aaabcc" becomes "3a1b2c".',
        code='''
            def compress_runs(text):
                if not text:
                    return ''
                parts = []
                count = 1
                for i in range(1, len(text)):
                    if text[i] == text[i - 1]:
                        count += 1
                    else:
                        parts.append(str(count) + text[i - 1])
                        count = 1
                parts.append(str(count) + text[-1])
                return ''.join(parts)
        ''',
        calls=["compress_runs('')", "compress_runs('a')", "compress_runs('aaabcc')", "compress_runs('abc')",
               "compress_runs('aaaa')", "compress_runs('aabbaa')", "compress_runs('z' * 12)", "compress_runs('ab')"],
    ),
    dict(
        name='expand_runs',
        query='Decode a run-length encoded string where each character is preceded by its (possibly multi-digit) '
              'repeat count, e.g. "3a12b" becomes "aaa" followed by twelve b characters.',
        code='''
            def expand_runs(encoded):
                result = []
                count = 0
                for ch in encoded:
                    if '0' <= ch <= '9':
                        count = count * 10 + int(ch)
                    else:
                        result.append(ch * count)
                        count = 0
                return ''.join(result)
        ''',
        calls=["expand_runs('')", "expand_runs('3a')", "expand_runs('1a1b')", "expand_runs('12z')",
               "expand_runs('0a2b')", "expand_runs('2a3b1c')", "expand_runs('10x')", "expand_runs('9a')"],
    ),
    dict(
        name='format_csv_row',
        query='Turn a list of values into one CSV line, quoting fields that contain a comma, a quote or a newline '
              'and doubling embedded quotes.',
        code='''
            def format_csv_row(fields):
                out = []
                for f in fields:
                    s = str(f)
                    if ',' in s or '"' in s or '\\n' in s:
                        s = '"' + s.replace('"', '""') + '"'
                    out.append(s)
                return ','.join(out)
        ''',
        calls=["format_csv_row(['a', 'b'])", 'format_csv_row([])', "format_csv_row(['a,b', 'c'])",
               """format_csv_row(['say "hi"'])""", "format_csv_row(['x\\ny'])", 'format_csv_row([1, 2.5, None])',
               "format_csv_row([''])", "format_csv_row(['', ''])", """format_csv_row(['plain', '"'])"""],
    ),
    dict(
        name='bin_counts',
        query='Count how many values fall into each of a number of equal-width bins over the half-open range '
              '[low, high), ignoring values outside it.',
        code='''
            def bin_counts(values, low, high, bins):
                counts = [0] * bins
                width = (high - low) / bins
                for v in values:
                    if v < low or v >= high:
                        continue
                    index = int((v - low) / width)
                    counts[min(index, bins - 1)] += 1
                return counts
        ''',
        calls=['bin_counts([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 0, 10, 5)', 'bin_counts([], 0, 1, 3)',
               'bin_counts([10], 0, 10, 2)', 'bin_counts([0], 0, 10, 2)', 'bin_counts([-1, 11], 0, 10, 2)',
               'bin_counts([4.99, 5], 0, 10, 2)', 'bin_counts([1, 2, 3], 0, 3, 1)',
               'bin_counts([2.5, 7.5, 7.5], 0, 10, 4)', 'bin_counts([15, 25, 35], 10, 40, 3)'],
    ),
    dict(
        name='rows_to_columns',
        query='Convert a list of row dictionaries into a dictionary of column lists, filling None where a row '
              'lacks a key.',
        code='''
            def rows_to_columns(rows):
                columns = {}
                for i, row in enumerate(rows):
                    for key in row:
                        if key not in columns:
                            columns[key] = [None] * i
                        columns[key].append(row[key])
                    for key in columns:
                        if len(columns[key]) < i + 1:
                            columns[key].append(None)
                return columns
        ''',
        calls=['rows_to_columns([])', "rows_to_columns([{'a': 1}])", "rows_to_columns([{'a': 1}, {'b': 2}])",
               "rows_to_columns([{'a': 1, 'b': 2}, {'a': 3}])", "rows_to_columns([{}, {'x': 0}])",
               "rows_to_columns([{'a': 1}, {'a': 2}, {'a': 3}])", "rows_to_columns([{'a': None}])",
               "rows_to_columns([{'a': 1}, {}, {'b': 2}])"],
    ),
    dict(
        name='min_max_scale',
        query='Rescale a list of numbers linearly so the smallest becomes 0.0 and the largest 1.0; '
              'all zeros when every value is the same.',
        code='''
            def min_max_scale(values):
                if not values:
                    return []
                lo, hi = min(values), max(values)
                if hi == lo:
                    return [0.0] * len(values)
                return [(v - lo) / (hi - lo) for v in values]
        ''',
        calls=['min_max_scale([])', 'min_max_scale([5])', 'min_max_scale([1, 2, 3])', 'min_max_scale([2, 2])',
               'min_max_scale([0, 10, 5])', 'min_max_scale([-1, 1])', 'min_max_scale([4, 0, 2, 1])',
               'min_max_scale([10, 30, 20])'],
    ),
    dict(
        name='compare_dicts',
        query='Compare two dictionaries and return three sorted key lists: added, removed and changed '
              '(present in both with different values).',
        code='''
            def compare_dicts(old, new):
                added = sorted(k for k in new if k not in old)
                removed = sorted(k for k in old if k not in new)
                changed = sorted(k for k in old if k in new and old[k] != new[k])
                return added, removed, changed
        ''',
        calls=['compare_dicts({}, {})', "compare_dicts({'a': 1}, {'a': 1})", "compare_dicts({'a': 1}, {'a': 2})",
               "compare_dicts({}, {'b': 1, 'a': 2})", "compare_dicts({'a': 1, 'b': 2}, {})",
               "compare_dicts({'a': 1, 'b': 2, 'c': 3}, {'b': 2, 'c': 4, 'd': 5})",
               "compare_dicts({'x': None}, {'x': 0})", "compare_dicts({'k': [1]}, {'k': [1], 'z': 1})"],
    ),
    dict(
        name='human_readable_size',
        query='Format a byte count as a human-readable size with binary units (B, KiB, MiB, GiB, TiB) '
              'and one decimal place above bytes.',
        code='''
            def human_readable_size(num_bytes):
                units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
                size = float(num_bytes)
                i = 0
                while size >= 1024 and i < len(units) - 1:
                    size /= 1024
                    i += 1
                if i == 0:
                    return f'{num_bytes} B'
                return f'{size:.1f} {units[i]}'
        ''',
        calls=['human_readable_size(0)', 'human_readable_size(1023)', 'human_readable_size(1024)',
               'human_readable_size(1536)', 'human_readable_size(1048576)', 'human_readable_size(5 * 1024 ** 4)',
               'human_readable_size(1024 ** 5)', 'human_readable_size(3 * 1024 ** 3)'],
    ),
    dict(
        name='parse_query_string',
        query='Parse a URL query string like "?a=1&b=2&a=3" (leading "?" optional) into a dictionary of lists of '
              'values, keeping blank values for keys without "=" and skipping empty pieces.',
        code='''
            def parse_query_string(query):
                if query.startswith('?'):
                    query = query[1:]
                result = {}
                for piece in query.split('&'):
                    if not piece:
                        continue
                    eq = piece.find('=')
                    if eq < 0:
                        key, value = piece, ''
                    else:
                        key, value = piece[:eq], piece[eq + 1:]
                    result.setdefault(key, []).append(value)
                return result
        ''',
        calls=["parse_query_string('')", "parse_query_string('a=1')", "parse_query_string('?a=1&b=2&a=3')",
               "parse_query_string('flag')", "parse_query_string('a=&&b=x=y')", "parse_query_string('=v')",
               "parse_query_string('k=1&k=1')", "parse_query_string('?')"],
    ),
]
