"""Curated tasks: math and numerical. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='integer_square_root',
        query='Compute the floor of the square root of a non-negative integer exactly with binary search '
              '(no floating point); return -1 for negative input.',
        code='''
            def integer_square_root(n):
                if n < 0:
                    return -1
                lo, hi = 0, n + 1
                while lo < hi - 1:
                    mid = (lo + hi) // 2
                    if mid * mid <= n:
                        lo = mid
                    else:
                        hi = mid
                return lo
        ''',
        # Cross-check: math.isqrt gives the same values for n >= 0.
        calls=['integer_square_root(0)', 'integer_square_root(1)', 'integer_square_root(2)', 'integer_square_root(3)',
               'integer_square_root(4)', 'integer_square_root(15)', 'integer_square_root(16)',
               'integer_square_root(17)', 'integer_square_root(10 ** 12)', 'integer_square_root(-4)'],
    ),
    dict(
        name='extended_gcd',
        query='Run the extended Euclidean algorithm on two integers and return (g, x, y) with g = gcd(a, b) '
              'and a*x + b*y = g.',
        code='''
            def extended_gcd(a, b):
                old_r, r = a, b
                old_s, s = 1, 0
                old_t, t = 0, 1
                while r != 0:
                    q = old_r // r
                    old_r, r = r, old_r - q * r
                    old_s, s = s, old_s - q * s
                    old_t, t = t, old_t - q * t
                return old_r, old_s, old_t
        ''',
        # Hand check: 240*(-9) + 46*47 = -2160 + 2162 = 2.
        calls=['extended_gcd(240, 46)', 'extended_gcd(0, 5)', 'extended_gcd(5, 0)', 'extended_gcd(7, 13)',
               'extended_gcd(12, 18)', 'extended_gcd(1, 1)', 'extended_gcd(17, 17)', 'extended_gcd(35, 15)'],
    ),
    dict(
        name='modular_power',
        query='Compute base raised to an exponent modulo m by fast binary exponentiation (square and multiply).',
        code='''
            def modular_power(base, exponent, modulus):
                if modulus == 1:
                    return 0
                result = 1
                base %= modulus
                while exponent > 0:
                    if exponent & 1:
                        result = result * base % modulus
                    base = base * base % modulus
                    exponent >>= 1
                return result
        ''',
        # Cross-check: Python's pow(base, exponent, modulus) gives the same values.
        calls=['modular_power(2, 10, 1000)', 'modular_power(3, 0, 7)', 'modular_power(5, 3, 1)',
               'modular_power(0, 0, 5)', 'modular_power(7, 1, 13)', 'modular_power(2, 62, 10 ** 9 + 7)',
               'modular_power(10, 9, 6)', 'modular_power(4, 13, 497)', 'modular_power(0, 5, 3)'],
    ),
    dict(
        name='primes_up_to',
        query='List all prime numbers up to and including a limit using the sieve of Eratosthenes.',
        code='''
            def primes_up_to(limit):
                if limit < 2:
                    return []
                is_prime = [True] * (limit + 1)
                is_prime[0] = is_prime[1] = False
                for i in range(2, int(limit ** 0.5) + 1):
                    if is_prime[i]:
                        for j in range(i * i, limit + 1, i):
                            is_prime[j] = False
                return [i for i in range(limit + 1) if is_prime[i]]
        ''',
        calls=['primes_up_to(0)', 'primes_up_to(1)', 'primes_up_to(2)', 'primes_up_to(3)', 'primes_up_to(10)',
               'primes_up_to(25)', 'primes_up_to(30)', 'primes_up_to(49)', 'primes_up_to(-7)'],
    ),
    dict(
        name='collatz_steps',
        query='Count how many steps the Collatz process (halve if even, 3n + 1 if odd) takes to reach 1; '
              '-1 for numbers below 1.',
        code='''
            def collatz_steps(n):
                if n < 1:
                    return -1
                steps = 0
                while n != 1:
                    if n % 2 == 0:
                        n //= 2
                    else:
                        n = 3 * n + 1
                    steps += 1
                return steps
        ''',
        # Reference: 27 takes 111 steps (OEIS A006577).
        calls=['collatz_steps(1)', 'collatz_steps(2)', 'collatz_steps(3)', 'collatz_steps(6)', 'collatz_steps(7)',
               'collatz_steps(27)', 'collatz_steps(0)', 'collatz_steps(-5)', 'collatz_steps(16)'],
    ),
    dict(
        name='n_choose_k',
        query='Compute the binomial coefficient C(n, k) with exact integer arithmetic; 0 when k is negative or '
              'greater than n.',
        code='''
            def n_choose_k(n, k):
                if k < 0 or k > n:
                    return 0
                k = min(k, n - k)
                result = 1
                for i in range(1, k + 1):
                    result = result * (n - k + i) // i
                return result
        ''',
        # Cross-check: math.comb; C(52, 5) = 2598960 poker hands.
        calls=['n_choose_k(5, 2)', 'n_choose_k(5, 0)', 'n_choose_k(5, 5)', 'n_choose_k(5, 6)', 'n_choose_k(5, -1)',
               'n_choose_k(0, 0)', 'n_choose_k(10, 3)', 'n_choose_k(52, 5)', 'n_choose_k(6, 3)', 'n_choose_k(7, 6)'],
    ),
    dict(
        name='trapezoid_area',
        query='Numerically integrate equally spaced samples with the trapezoidal rule given the sample spacing dx.',
        code='''
            def trapezoid_area(ys, dx):
                if len(ys) < 2:
                    return 0.0
                total = (ys[0] + ys[-1]) / 2
                for y in ys[1:-1]:
                    total += y
                return total * dx
        ''',
        calls=['trapezoid_area([], 1)', 'trapezoid_area([5], 1)', 'trapezoid_area([0, 2], 1)',
               'trapezoid_area([0, 1, 2], 1)', 'trapezoid_area([1, 1, 1, 1], 0.5)', 'trapezoid_area([0, 4, 0], 2)',
               'trapezoid_area([3, 1], 4)', 'trapezoid_area([1, 2, 3, 4], 1)', 'trapezoid_area([2, 0, 0, 6], 1)'],
    ),
    dict(
        name='to_base_digits',
        query='Convert a non-negative integer to its list of digits in another base (most significant first); '
              'an empty list for bases below 2.',
        code='''
            def to_base_digits(n, base):
                if base < 2:
                    return []
                if n == 0:
                    return [0]
                digits = []
                while n > 0:
                    digits.append(n % base)
                    n //= base
                return digits[::-1]
        ''',
        calls=['to_base_digits(0, 2)', 'to_base_digits(5, 2)', 'to_base_digits(255, 16)', 'to_base_digits(10, 10)',
               'to_base_digits(7, 1)', 'to_base_digits(8, 8)', 'to_base_digits(100, 3)', 'to_base_digits(1, 2)',
               'to_base_digits(9, 3)'],
    ),
    dict(
        name='sum_proper_divisors',
        query='Sum the proper divisors of a positive integer (all divisors except the number itself), '
              'checking divisors only up to the square root.',
        code='''
            def sum_proper_divisors(n):
                if n < 2:
                    return 0
                total = 1
                i = 2
                while i * i <= n:
                    if n % i == 0:
                        total += i
                        if i != n // i:
                            total += n // i
                    i += 1
                return total
        ''',
        # Hand checks: 12 -> 1+2+3+4+6 = 16; 36 -> 1+2+3+4+6+9+12+18 = 55; 28 is perfect.
        calls=['sum_proper_divisors(1)', 'sum_proper_divisors(6)', 'sum_proper_divisors(12)',
               'sum_proper_divisors(16)', 'sum_proper_divisors(28)', 'sum_proper_divisors(2)',
               'sum_proper_divisors(0)', 'sum_proper_divisors(25)', 'sum_proper_divisors(97)',
               'sum_proper_divisors(36)'],
    ),
    dict(
        name='derivative_coefficients',
        query='Differentiate a polynomial given as a list of coefficients from the constant term upward, '
              'returning the derivative in the same form ([0] for a constant).',
        code='''
            def derivative_coefficients(coeffs):
                if len(coeffs) <= 1:
                    return [0]
                return [i * coeffs[i] for i in range(1, len(coeffs))]
        ''',
        calls=['derivative_coefficients([])', 'derivative_coefficients([5])', 'derivative_coefficients([1, 2])',
               'derivative_coefficients([3, 0, 2])', 'derivative_coefficients([1, 1, 1, 1])',
               'derivative_coefficients([0, 0, 0, 4])', 'derivative_coefficients([-1, -2, -3])',
               'derivative_coefficients([7, 0])'],
    ),
]
