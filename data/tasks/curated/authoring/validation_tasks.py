"""Curated tasks: validation. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='is_valid_ipv4',
        query='Validate a dotted-quad IPv4 address string: four decimal parts 0-255 without leading zeros.',
        code='''
            def is_valid_ipv4(address):
                parts = address.split('.')
                if len(parts) != 4:
                    return False
                for p in parts:
                    if not p.isdigit() or len(p) > 3:
                        return False
                    if len(p) > 1 and p[0] == '0':
                        return False
                    if int(p) > 255:
                        return False
                return True
        ''',
        calls=["is_valid_ipv4('192.168.0.1')", "is_valid_ipv4('255.255.255.255')", "is_valid_ipv4('256.1.1.1')",
               "is_valid_ipv4('1.2.3')", "is_valid_ipv4('1.2.3.4.5')", "is_valid_ipv4('01.2.3.4')",
               "is_valid_ipv4('0.0.0.0')", "is_valid_ipv4('1.2.3.a')", "is_valid_ipv4('1..2.3')",
               "is_valid_ipv4('10.20.30.40')"],
    ),
    dict(
        name='passes_luhn',
        query='Check a credit card number string (spaces allowed, at least two digits) with the Luhn checksum '
              'algorithm.',
        code='''
            def passes_luhn(number):
                digits = [c for c in number if c != ' ']
                if len(digits) < 2 or not all(c.isdigit() for c in digits):
                    return False
                total = 0
                for i, c in enumerate(reversed(digits)):
                    d = int(c)
                    if i % 2 == 1:
                        d *= 2
                        if d > 9:
                            d -= 9
                    total += d
                return total % 10 == 0
        ''',
        # Reference: 79927398713 is the Luhn example on Wikipedia (valid); 4539 1488 0343 6467 is a Visa test number.
        calls=["passes_luhn('4539 1488 0343 6467')", "passes_luhn('8273 1232 7352 0569')", "passes_luhn('79927398713')",
               "passes_luhn('0')", "passes_luhn('00')", "passes_luhn('1234567812345670')",
               "passes_luhn('1234567812345678')", "passes_luhn('4539a488')", "passes_luhn('59')", "passes_luhn('18')"],
    ),
    dict(
        name='looks_like_email',
        query='Do a basic sanity check of an e-mail address: exactly one @, no spaces, a non-empty local part of at '
              'most 64 characters and a domain with a dot that is neither first nor last.',
        code='''
            def looks_like_email(address):
                if address.count('@') != 1 or ' ' in address:
                    return False
                local, domain = address.split('@')
                if not local or len(local) > 64:
                    return False
                dot = domain.rfind('.')
                if dot < 1 or dot == len(domain) - 1:
                    return False
                return True
        ''',
        calls=["looks_like_email('a@b.co')", "looks_like_email('ab.co')", "looks_like_email('a@@b.co')",
               "looks_like_email('@b.co')", "looks_like_email('a@.co')", "looks_like_email('a@b.')",
               "looks_like_email('a b@c.de')", "looks_like_email('a@bc')", "looks_like_email('x' * 64 + '@b.co')",
               "looks_like_email('x' * 65 + '@b.co')"],
    ),
    dict(
        name='brackets_balanced',
        query='Check whether the round, square and curly brackets in a string are balanced and properly nested, '
              'ignoring other characters.',
        code='''
            def brackets_balanced(text):
                pairs = {')': '(', ']': '[', '}': '{'}
                stack = []
                for ch in text:
                    if ch in '([{':
                        stack.append(ch)
                    elif ch in pairs:
                        if not stack or stack[-1] != pairs[ch]:
                            return False
                        stack.pop()
                return len(stack) == 0
        ''',
        calls=["brackets_balanced('')", "brackets_balanced('()[]{}')", "brackets_balanced('([{}])')",
               "brackets_balanced('(]')", "brackets_balanced('((')", "brackets_balanced('))')",
               "brackets_balanced('a(b)c')", "brackets_balanced('([)]')", "brackets_balanced('{[]}(')"],
    ),
    dict(
        name='password_is_strong',
        query='Check that a password has at least 8 characters and contains an uppercase letter, a lowercase '
              'letter, a digit and a symbol.',
        code='''
            def password_is_strong(password):
                if len(password) < 8:
                    return False
                has_upper = has_lower = has_digit = has_symbol = False
                for ch in password:
                    if ch.isupper():
                        has_upper = True
                    elif ch.islower():
                        has_lower = True
                    elif ch.isdigit():
                        has_digit = True
                    else:
                        has_symbol = True
                return has_upper and has_lower and has_digit and has_symbol
        ''',
        calls=["password_is_strong('Abcdef1!')", "password_is_strong('Abcde1!')", "password_is_strong('abcdefg1!')",
               "password_is_strong('ABCDEFG1!')", "password_is_strong('Abcdefgh!')", "password_is_strong('Abcdefg12')",
               "password_is_strong('Str0ng!Passw0rd')", "password_is_strong('')", "password_is_strong('A1!aaaaaaaaa')"],
    ),
    dict(
        name='is_valid_isbn10',
        query='Validate an ISBN-10 (hyphens allowed): ten characters, digits except an optional final X worth 10, '
              'and a weighted checksum divisible by 11.',
        code='''
            def is_valid_isbn10(isbn):
                chars = isbn.replace('-', '')
                if len(chars) != 10:
                    return False
                total = 0
                for i, ch in enumerate(chars):
                    if ch.isdigit():
                        value = int(ch)
                    elif ch == 'X' and i == 9:
                        value = 10
                    else:
                        return False
                    total += (10 - i) * value
                return total % 11 == 0
        ''',
        # Reference: 0-306-40615-2 is the ISBN-10 example on Wikipedia.
        calls=["is_valid_isbn10('0-306-40615-2')", "is_valid_isbn10('0306406152')", "is_valid_isbn10('0306406153')",
               "is_valid_isbn10('080442957X')", "is_valid_isbn10('08044295X7')", "is_valid_isbn10('123456789')",
               "is_valid_isbn10('000000000')", "is_valid_isbn10('ABCDEFGHIJ')", "is_valid_isbn10('3-598-21508-8')",
               "is_valid_isbn10('00000000X2')"],
    ),
    dict(
        name='is_hex_color',
        query='Check whether a string is a CSS hex colour: "#" followed by exactly 3 or 6 hexadecimal digits.',
        code='''
            def is_hex_color(value):
                if not value.startswith('#'):
                    return False
                digits = value[1:]
                if len(digits) != 3 and len(digits) != 6:
                    return False
                return all(c in '0123456789abcdefABCDEF' for c in digits)
        ''',
        calls=["is_hex_color('#fff')", "is_hex_color('#FFFFFF')", "is_hex_color('#12ab9F')", "is_hex_color('fff')",
               "is_hex_color('#ffff')", "is_hex_color('#ff')", "is_hex_color('#ggg')", "is_hex_color('#')",
               "is_hex_color('#1234567')", "is_hex_color('#abcde')"],
    ),
    dict(
        name='is_valid_iso_date',
        query='Validate a date string in YYYY-MM-DD format, including month ranges, month lengths and '
              'Gregorian leap years.',
        code='''
            def is_valid_iso_date(text):
                if len(text) != 10 or text[4] != '-' or text[7] != '-':
                    return False
                y, m, d = text[:4], text[5:7], text[8:]
                if not (y.isdigit() and m.isdigit() and d.isdigit()):
                    return False
                year, month, day = int(y), int(m), int(d)
                if month < 1 or month > 12 or day < 1:
                    return False
                leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
                days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
                return day <= days[month - 1]
        ''',
        calls=["is_valid_iso_date('2024-02-29')", "is_valid_iso_date('2023-02-29')", "is_valid_iso_date('1900-02-29')",
               "is_valid_iso_date('2000-02-29')", "is_valid_iso_date('2023-04-31')", "is_valid_iso_date('2023-12-31')",
               "is_valid_iso_date('2023-13-01')", "is_valid_iso_date('2023-00-10')", "is_valid_iso_date('2023-01-00')",
               "is_valid_iso_date('2023/01/01')"],
    ),
    dict(
        name='is_valid_username',
        query='Validate a username: 3 to 16 characters, starting with a letter, only letters, digits and '
              'underscores, no two underscores in a row and not ending with an underscore.',
        code='''
            def is_valid_username(name):
                if len(name) < 3 or len(name) > 16:
                    return False
                if not name[0].isalpha():
                    return False
                for i, ch in enumerate(name):
                    if not (ch.isalnum() or ch == '_'):
                        return False
                    if ch == '_' and i > 0 and name[i - 1] == '_':
                        return False
                return not name.endswith('_')
        ''',
        calls=["is_valid_username('bob')", "is_valid_username('al')", "is_valid_username('a' * 16)",
               "is_valid_username('a' * 17)", "is_valid_username('1abc')", "is_valid_username('ab_c')",
               "is_valid_username('ab__c')", "is_valid_username('abc_')", "is_valid_username('a-bc')",
               "is_valid_username('_abc')"],
    ),
    dict(
        name='is_semantic_version',
        query='Check whether a string is a semantic version MAJOR.MINOR.PATCH (numbers without leading zeros), '
              'optionally followed by a non-empty "-prerelease" tag.',
        code='''
            def is_semantic_version(version):
                core = version.split('-', 1)[0]
                parts = core.split('.')
                if len(parts) != 3:
                    return False
                for p in parts:
                    if not p.isdigit():
                        return False
                    if len(p) > 1 and p[0] == '0':
                        return False
                if '-' in version and not version.split('-', 1)[1]:
                    return False
                return True
        ''',
        calls=["is_semantic_version('1.2.3')", "is_semantic_version('0.0.0')", "is_semantic_version('1.2')",
               "is_semantic_version('1.2.3.4')", "is_semantic_version('01.2.3')", "is_semantic_version('1.2.3-alpha')",
               "is_semantic_version('1.2.3-')", "is_semantic_version('a.b.c')", "is_semantic_version('10.20.30')",
               "is_semantic_version('1.02.3')"],
    ),
]
