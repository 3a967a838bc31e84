"""Curated tasks: string processing. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='longest_common_prefix',
        query='Find the longest prefix shared by all strings in a list (empty string for an empty list).',
        code='''
            def longest_common_prefix(words):
                if not words:
                    return ''
                prefix = words[0]
                for w in words[1:]:
                    i = 0
                    while i < len(prefix) and i < len(w) and prefix[i] == w[i]:
                        i += 1
                    prefix = prefix[:i]
                return prefix
        ''',
        calls=['longest_common_prefix([])', "longest_common_prefix(['flower', 'flow', 'flight'])",
               "longest_common_prefix(['dog', 'racecar', 'car'])", "longest_common_prefix(['alone'])",
               "longest_common_prefix(['abc', 'abc'])", "longest_common_prefix(['abc', 'ab', 'abcd'])",
               "longest_common_prefix(['', 'abc'])", "longest_common_prefix(['interview', 'internet', 'interval'])"],
    ),
    dict(
        name='caesar_cipher',
        query='Shift each letter of a text by a fixed amount through the alphabet (Caesar cipher), preserving case '
              'and leaving other characters unchanged.',
        code='''
            def caesar_cipher(text, shift):
                out = []
                for ch in text:
                    if 'a' <= ch <= 'z':
                        out.append(chr((ord(ch) - ord('a') + shift) % 26 + ord('a')))
                    elif 'A' <= ch <= 'Z':
                        out.append(chr((ord(ch) - ord('A') + shift) % 26 + ord('A')))
                    else:
                        out.append(ch)
                return ''.join(out)
        ''',
        calls=["caesar_cipher('abc', 1)", "caesar_cipher('xyz', 3)", "caesar_cipher('Hello, World!', 13)",
               "caesar_cipher('', 5)", "caesar_cipher('abc', 0)", "caesar_cipher('abc', -1)", "caesar_cipher('Zz', 1)",
               "caesar_cipher('a1 b2', 26)", "caesar_cipher('Az', 52 + 2)"],
    ),
    dict(
        name='camel_case_to_snake',
        query='Convert a camelCase or PascalCase identifier to snake_case, keeping acronyms together '
              '("HTTPServer" -> "http_server").',
        code='''
            def camel_case_to_snake(name):
                out = []
                for i, ch in enumerate(name):
                    if ch.isupper():
                        if i > 0 and (name[i - 1].islower() or (i + 1 < len(name) and name[i + 1].islower())):
                            out.append('_')
                        out.append(ch.lower())
                    else:
                        out.append(ch)
                return ''.join(out)
        ''',
        calls=["camel_case_to_snake('camelCase')", "camel_case_to_snake('HTTPServer')", "camel_case_to_snake('getHTTP')",
               "camel_case_to_snake('X')", "camel_case_to_snake('')", "camel_case_to_snake('already_snake')",
               "camel_case_to_snake('ABC')", "camel_case_to_snake('parseXMLFile')", "camel_case_to_snake('PascalCase')"],
    ),
    dict(
        name='wrap_words',
        query='Greedily wrap text into lines no longer than a given width, breaking only at spaces '
              '(a word longer than the width gets its own line).',
        code='''
            def wrap_words(text, width):
                lines = []
                current = ''
                for word in text.split():
                    if not current:
                        current = word
                    elif len(current) + 1 + len(word) <= width:
                        current += ' ' + word
                    else:
                        lines.append(current)
                        current = word
                if current:
                    lines.append(current)
                return lines
        ''',
        calls=["wrap_words('', 10)", "wrap_words('hello world', 11)", "wrap_words('hello world', 10)",
               "wrap_words('a b c d', 3)", "wrap_words('longword', 3)", "wrap_words('one two three', 7)",
               "wrap_words('  spaced   out  ', 20)", "wrap_words('a bb ccc dddd', 6)"],
    ),
    dict(
        name='longest_palindrome_substring',
        query='Find the longest palindromic substring of a string by expanding around every centre, returning '
              'the leftmost one on ties.',
        code='''
            def longest_palindrome_substring(s):
                if not s:
                    return ''
                best_start, best_len = 0, 1
                for center in range(len(s)):
                    for left, right in ((center, center), (center, center + 1)):
                        while left >= 0 and right < len(s) and s[left] == s[right]:
                            left -= 1
                            right += 1
                        length = right - left - 1
                        if length > best_len:
                            best_start, best_len = left + 1, length
                return s[best_start:best_start + best_len]
        ''',
        calls=["longest_palindrome_substring('')", "longest_palindrome_substring('a')",
               "longest_palindrome_substring('babad')", "longest_palindrome_substring('cbbd')",
               "longest_palindrome_substring('racecar')", "longest_palindrome_substring('abcd')",
               "longest_palindrome_substring('forgeeksskeegfor')", "longest_palindrome_substring('aaaa')",
               "longest_palindrome_substring('abacdfgdcaba')"],
    ),
    dict(
        name='smart_title_case',
        query='Title-case a sentence, capitalising every word except listed minor words (like "of", "the"), '
              'which stay lowercase unless they are the first word.',
        code='''
            def smart_title_case(text, minor_words):
                words = text.split(' ')
                out = []
                for i, w in enumerate(words):
                    lw = w.lower()
                    if i > 0 and lw in minor_words:
                        out.append(lw)
                    else:
                        out.append(lw[:1].upper() + lw[1:])
                return ' '.join(out)
        ''',
        calls=["smart_title_case('the lord of the rings', ('of', 'the'))", "smart_title_case('', ())",
               "smart_title_case('HELLO world', ())", "smart_title_case('a tale of two cities', ('a', 'of'))",
               "smart_title_case('of mice and men', ('of', 'and'))", "smart_title_case('x', ('x',))",
               "smart_title_case('war AND peace', ('and',))", "smart_title_case('double  space', ())"],
    ),
    dict(
        name='count_overlapping',
        query='Count how many times a pattern occurs in a text, counting overlapping occurrences '
              '(0 for an empty pattern).',
        code='''
            def count_overlapping(text, pattern):
                if not pattern:
                    return 0
                count = 0
                for i in range(len(text) - len(pattern) + 1):
                    if text[i:i + len(pattern)] == pattern:
                        count += 1
                return count
        ''',
        calls=["count_overlapping('aaaa', 'aa')", "count_overlapping('abc', '')", "count_overlapping('', 'a')",
               "count_overlapping('abcabc', 'abc')", "count_overlapping('abc', 'abcd')", "count_overlapping('ababa', 'aba')",
               "count_overlapping('xyz', 'z')", "count_overlapping('aaa', 'a')", "count_overlapping('xyz', 'x')"],
    ),
    dict(
        name='levenshtein',
        query='Compute the edit distance (insertions, deletions and substitutions each costing 1) between two strings.',
        code='''
            def levenshtein(a, b):
                prev = list(range(len(b) + 1))
                for i in range(1, len(a) + 1):
                    cur = [i] + [0] * len(b)
                    for j in range(1, len(b) + 1):
                        cost = 0 if a[i - 1] == b[j - 1] else 1
                        cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                    prev = cur
                return prev[len(b)]
        ''',
        # Reference: kitten -> sitting is 3 (the textbook example).
        calls=["levenshtein('kitten', 'sitting')", "levenshtein('', '')", "levenshtein('abc', '')",
               "levenshtein('', 'abcd')", "levenshtein('same', 'same')", "levenshtein('flaw', 'lawn')",
               "levenshtein('a', 'b')", "levenshtein('intention', 'execution')", "levenshtein('ab', 'ba')"],
    ),
    dict(
        name='expand_tab_stops',
        query='Replace tab characters with spaces up to the next tab stop of a given size, restarting the column '
              'count after each newline.',
        code='''
            def expand_tab_stops(line, tab_size):
                out = []
                col = 0
                for ch in line:
                    if ch == '\\t':
                        spaces = tab_size - col % tab_size
                        out.append(' ' * spaces)
                        col += spaces
                    elif ch == '\\n':
                        out.append(ch)
                        col = 0
                    else:
                        out.append(ch)
                        col += 1
                return ''.join(out)
        ''',
        # Cross-check: str.expandtabs(tab_size) gives the same strings.
        calls=["expand_tab_stops('a\\tb', 4)", "expand_tab_stops('\\t', 4)", "expand_tab_stops('abcd\\te', 4)",
               "expand_tab_stops('ab\\tc\\td', 3)", "expand_tab_stops('', 4)", "expand_tab_stops('x\\n\\ty', 2)",
               "expand_tab_stops('no tabs', 8)", "expand_tab_stops('\\t\\t', 2)", "expand_tab_stops('abc\\t', 3)"],
    ),
    dict(
        name='mask_all_but_last',
        query='Mask a sensitive string such as a card number with asterisks, leaving only the last few characters '
              'visible.',
        code='''
            def mask_all_but_last(text, visible):
                if visible <= 0:
                    return '*' * len(text)
                if len(text) <= visible:
                    return text
                return '*' * (len(text) - visible) + text[-visible:]
        ''',
        calls=["mask_all_but_last('1234567890', 4)", "mask_all_but_last('abc', 3)", "mask_all_but_last('abc', 5)",
               "mask_all_but_last('abcd', 3)", "mask_all_but_last('', 2)", "mask_all_but_last('secret', 0)",
               "mask_all_but_last('xy', -1)", "mask_all_but_last('abcdef', 1)"],
    ),
]
