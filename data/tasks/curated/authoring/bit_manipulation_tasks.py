"""Curated tasks: bit manipulation. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='lowest_set_bit_index',
        query='Find the zero-based position of the lowest set bit of an integer, returning -1 when the number is zero.',
        code='''
            def lowest_set_bit_index(n):
                if n == 0:
                    return -1
                index = 0
                while n & 1 == 0:
                    n >>= 1
                    index += 1
                return index
        ''',
        calls=['lowest_set_bit_index(0)', 'lowest_set_bit_index(1)', 'lowest_set_bit_index(8)',
               'lowest_set_bit_index(12)', 'lowest_set_bit_index(7)', 'lowest_set_bit_index(6)',
               'lowest_set_bit_index(2 ** 40)', 'lowest_set_bit_index(-8)'],
    ),
    dict(
        name='count_one_bits',
        query="Count how many bits are set to 1 in a non-negative integer using Brian Kernighan's trick.",
        code='''
            def count_one_bits(n):
                count = 0
                while n > 0:
                    n &= n - 1
                    count += 1
                return count
        ''',
        calls=['count_one_bits(0)', 'count_one_bits(1)', 'count_one_bits(2)', 'count_one_bits(7)',
               'count_one_bits(8)', 'count_one_bits(255)', 'count_one_bits(1023)', 'count_one_bits(2 ** 64 + 5)'],
    ),
    dict(
        name='is_power_of_four',
        query='Check whether an integer is an exact power of four (1, 4, 16, 64, ...).',
        code='''
            def is_power_of_four(n):
                if n <= 0:
                    return False
                if n & (n - 1) != 0:
                    return False
                return (n.bit_length() - 1) % 2 == 0
        ''',
        calls=['is_power_of_four(0)', 'is_power_of_four(1)', 'is_power_of_four(4)', 'is_power_of_four(16)',
               'is_power_of_four(2)', 'is_power_of_four(8)', 'is_power_of_four(-4)', 'is_power_of_four(1024)',
               'is_power_of_four(12)', 'is_power_of_four(20)'],
    ),
    dict(
        name='reverse_bits_width',
        query='Reverse the order of the lowest `width` bits of a number, e.g. 0b0001 with width 4 becomes 0b1000.',
        code='''
            def reverse_bits_width(value, width):
                result = 0
                for i in range(width):
                    if value >> i & 1:
                        result |= 1 << (width - 1 - i)
                return result
        ''',
        calls=['reverse_bits_width(1, 8)', 'reverse_bits_width(0b1011, 4)', 'reverse_bits_width(0, 8)',
               'reverse_bits_width(6, 3)', 'reverse_bits_width(255, 8)', 'reverse_bits_width(1, 1)',
               'reverse_bits_width(2, 4)', 'reverse_bits_width(0b10000000, 8)', 'reverse_bits_width(5, 0)'],
    ),
    dict(
        name='gray_to_binary',
        query='Convert a reflected Gray code value back to its ordinary binary number.',
        code='''
            def gray_to_binary(gray):
                result = gray
                shift = gray >> 1
                while shift:
                    result ^= shift
                    shift >>= 1
                return result
        ''',
        calls=['gray_to_binary(0)', 'gray_to_binary(1)', 'gray_to_binary(3)', 'gray_to_binary(2)',
               'gray_to_binary(6)', 'gray_to_binary(7)', 'gray_to_binary(5)', 'gray_to_binary(4)',
               'gray_to_binary(8)', 'gray_to_binary(0b1011)'],
    ),
    dict(
        name='gray_code_sequence',
        query='Generate the reflected binary Gray code sequence for a given number of bits as a list of integers.',
        code='''
            def gray_code_sequence(bits):
                if bits < 1:
                    return [0]
                return [i ^ (i >> 1) for i in range(1 << bits)]
        ''',
        calls=['gray_code_sequence(0)', 'gray_code_sequence(1)', 'gray_code_sequence(2)', 'gray_code_sequence(3)',
               'gray_code_sequence(4)', 'gray_code_sequence(-2)', 'gray_code_sequence(5)[-1]'],
    ),
    dict(
        name='swap_adjacent_bits',
        query='Swap every pair of adjacent bits (bit 0 with bit 1, bit 2 with bit 3, ...) in a 32-bit unsigned integer.',
        code='''
            def swap_adjacent_bits(n):
                odd = (n & 0xAAAAAAAA) >> 1
                even = (n & 0x55555555) << 1
                return odd | even
        ''',
        calls=['swap_adjacent_bits(0)', 'swap_adjacent_bits(1)', 'swap_adjacent_bits(2)', 'swap_adjacent_bits(3)',
               'swap_adjacent_bits(0b1010)', 'swap_adjacent_bits(0xAAAAAAAA)', 'swap_adjacent_bits(0xFFFFFFFF)',
               'swap_adjacent_bits(23)', 'swap_adjacent_bits(0x80000000)'],
    ),
    dict(
        name='has_odd_parity',
        query='Tell whether a non-negative integer has an odd number of 1 bits (odd parity).',
        code='''
            def has_odd_parity(n):
                parity = 0
                while n:
                    parity ^= n & 1
                    n >>= 1
                return parity == 1
        ''',
        calls=['has_odd_parity(0)', 'has_odd_parity(1)', 'has_odd_parity(3)', 'has_odd_parity(7)',
               'has_odd_parity(8)', 'has_odd_parity(6)', 'has_odd_parity(255)', 'has_odd_parity(254)',
               'has_odd_parity(2 ** 50)'],
    ),
    dict(
        name='set_bit_range',
        query='Set all bits from position lo to position hi (inclusive, zero-based) in a number; '
              'leave the number unchanged when lo is greater than hi.',
        code='''
            def set_bit_range(value, lo, hi):
                if lo > hi:
                    return value
                mask = ((1 << (hi - lo + 1)) - 1) << lo
                return value | mask
        ''',
        calls=['set_bit_range(0, 0, 0)', 'set_bit_range(0, 1, 3)', 'set_bit_range(0, 3, 1)', 'set_bit_range(5, 1, 1)',
               'set_bit_range(0, 4, 4)', 'set_bit_range(1, 0, 7)', 'set_bit_range(0b100000, 0, 2)',
               'set_bit_range(8, 2, 3)', 'set_bit_range(9, 5, 4)'],
    ),
    dict(
        name='next_power_of_two',
        query='Round an integer up to the nearest power of two (the smallest power of two that is >= n); '
              'anything below 2 maps to 1.',
        code='''
            def next_power_of_two(n):
                if n <= 1:
                    return 1
                return 1 << (n - 1).bit_length()
        ''',
        calls=['next_power_of_two(0)', 'next_power_of_two(1)', 'next_power_of_two(2)', 'next_power_of_two(3)',
               'next_power_of_two(4)', 'next_power_of_two(5)', 'next_power_of_two(16)', 'next_power_of_two(17)',
               'next_power_of_two(-5)'],
    ),
]
