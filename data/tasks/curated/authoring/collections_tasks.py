"""Curated tasks: collections. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='chunk_list',
        query='Split a list into consecutive chunks of a given size, the last chunk holding the remainder; '
              'return an empty list when the size is not positive.',
        code='''
            def chunk_list(items, size):
                if size <= 0:
                    return []
                return [items[i:i + size] for i in range(0, len(items), size)]
        ''',
        calls=['chunk_list([1, 2, 3, 4, 5], 2)', 'chunk_list([], 3)', 'chunk_list([1, 2, 3], 3)',
               'chunk_list([1, 2, 3], 1)', 'chunk_list([1, 2], 0)', 'chunk_list([1, 2], -1)',
               'chunk_list([1, 2, 3, 4], 5)', 'chunk_list([1, 2, 3, 4], 3)'],
    ),
    dict(
        name='top_n_frequent',
        query='Return the n most frequent items of a list, most frequent first, breaking ties by first appearance.',
        code='''
            def top_n_frequent(items, n):
                if n <= 0:
                    return []
                counts = {}
                for x in items:
                    counts[x] = counts.get(x, 0) + 1
                ranked = sorted(counts, key=lambda x: -counts[x])
                return ranked[:n]
        ''',
        calls=["top_n_frequent(['a', 'b', 'a', 'c', 'b', 'a'], 2)", 'top_n_frequent([], 3)',
               'top_n_frequent([1, 2, 3], 0)', 'top_n_frequent([1, 2, 3], -2)', 'top_n_frequent([3, 1, 2], 2)',
               'top_n_frequent([5, 5, 4, 4, 4], 1)', 'top_n_frequent([1, 2, 2, 3, 3, 3], 5)',
               "top_n_frequent(['x', 'y', 'y'], 1)"],
    ),
    dict(
        name='flatten_to_depth',
        query='Flatten nested lists only up to a given depth, leaving deeper lists intact.',
        code='''
            def flatten_to_depth(items, depth):
                result = []
                for x in items:
                    if isinstance(x, list) and depth > 0:
                        result.extend(flatten_to_depth(x, depth - 1))
                    else:
                        result.append(x)
                return result
        ''',
        calls=['flatten_to_depth([1, [2, [3, [4]]]], 1)', 'flatten_to_depth([1, [2, [3, [4]]]], 0)',
               'flatten_to_depth([1, [2, [3, [4]]]], 2)', 'flatten_to_depth([1, [2, [3, [4]]]], 10)',
               'flatten_to_depth([], 3)', 'flatten_to_depth([[], [1]], 1)', 'flatten_to_depth([[1, 2], 3], -1)',
               "flatten_to_depth([['a'], [['b']]], 1)"],
    ),
    dict(
        name='rotate_list_right',
        query='Rotate a list to the right by k positions (negative k rotates left), returning a new list.',
        code='''
            def rotate_list_right(items, k):
                n = len(items)
                if n == 0:
                    return []
                k = k % n
                return items[n - k:] + items[:n - k]
        ''',
        calls=['rotate_list_right([1, 2, 3, 4, 5], 2)', 'rotate_list_right([1, 2, 3], 0)',
               'rotate_list_right([1, 2, 3], 3)', 'rotate_list_right([1, 2, 3], 4)', 'rotate_list_right([], 5)',
               'rotate_list_right([1, 2, 3], -1)', 'rotate_list_right([7], 100)', "rotate_list_right(['a', 'b'], 1)"],
    ),
    dict(
        name='longest_equal_run',
        query='Find where the longest run of equal consecutive elements starts and how long it is, '
              'returning (start, length), the earliest run on ties and (-1, 0) for an empty list.',
        code='''
            def longest_equal_run(items):
                if not items:
                    return (-1, 0)
                best_start, best_len = 0, 1
                start = 0
                for i in range(1, len(items)):
                    if items[i] != items[i - 1]:
                        start = i
                    if i - start + 1 > best_len:
                        best_start, best_len = start, i - start + 1
                return (best_start, best_len)
        ''',
        calls=['longest_equal_run([])', 'longest_equal_run([7])', 'longest_equal_run([1, 1, 2, 2, 2, 1])',
               'longest_equal_run([1, 2, 3])', 'longest_equal_run([5, 5, 5])', 'longest_equal_run([1, 2, 2, 3, 3])',
               "longest_equal_run(['a', 'a', 'b', 'b', 'b', 'b'])", 'longest_equal_run([0, 1, 1])'],
    ),
    dict(
        name='run_length_pairs',
        query='Group consecutive equal elements of a sequence into (value, count) pairs.',
        code='''
            def run_length_pairs(items):
                result = []
                for x in items:
                    if result and result[-1][0] == x:
                        result[-1] = (x, result[-1][1] + 1)
                    else:
                        result.append((x, 1))
                return result
        ''',
        calls=['run_length_pairs([])', 'run_length_pairs([1])', 'run_length_pairs([1, 1, 2, 2, 2, 1])',
               "run_length_pairs('aaab')", 'run_length_pairs([0, 0, 0, 0])', 'run_length_pairs([1, 2, 3])',
               'run_length_pairs([None, None, 0])'],
    ),
    dict(
        name='nth_from_end',
        query='Get the n-th element counting from the end of a list (n = 1 is the last element), '
              'or None when n is out of range.',
        code='''
            def nth_from_end(items, n):
                if n < 1 or n > len(items):
                    return None
                return items[len(items) - n]
        ''',
        calls=['nth_from_end([1, 2, 3], 1)', 'nth_from_end([1, 2, 3], 3)', 'nth_from_end([1, 2, 3], 4)',
               'nth_from_end([1, 2, 3], 0)', 'nth_from_end([], 1)', 'nth_from_end([5], 1)',
               'nth_from_end([1, 2, 3], -1)', 'nth_from_end([1, 2, 3], 2)'],
    ),
    dict(
        name='find_sublist',
        query='Find the index where a smaller list first occurs as a contiguous run inside a larger list; '
              '-1 if it does not occur, 0 for an empty pattern.',
        code='''
            def find_sublist(haystack, needle):
                if not needle:
                    return 0
                for i in range(len(haystack) - len(needle) + 1):
                    if haystack[i:i + len(needle)] == needle:
                        return i
                return -1
        ''',
        calls=['find_sublist([1, 2, 3, 4], [3, 4])', 'find_sublist([1, 2, 3], [])', 'find_sublist([], [1])',
               'find_sublist([1, 2, 1, 2, 3], [1, 2, 3])', 'find_sublist([1, 2], [1, 2])',
               'find_sublist([1, 2], [2, 1])', 'find_sublist([5, 5, 5], [5])', 'find_sublist([1, 2, 3], [3])',
               'find_sublist([], [])'],
    ),
    dict(
        name='window_sums',
        query='Compute the sum of every contiguous window of size k in a list of numbers; '
              'empty result if k is not between 1 and the list length.',
        code='''
            def window_sums(nums, k):
                if k <= 0 or k > len(nums):
                    return []
                total = sum(nums[:k])
                sums = [total]
                for i in range(k, len(nums)):
                    total += nums[i] - nums[i - k]
                    sums.append(total)
                return sums
        ''',
        calls=['window_sums([1, 2, 3, 4, 5], 2)', 'window_sums([1, 2, 3], 3)', 'window_sums([1, 2, 3], 4)',
               'window_sums([1, 2, 3], 0)', 'window_sums([], 1)', 'window_sums([5, -1, 2], 1)',
               'window_sums([1, 2, 3, 4], 3)', 'window_sums([0, 0, 7], 2)'],
    ),
    dict(
        name='circular_neighbors',
        query='Return the previous and next elements of the item at an index in a circular list, '
              'wrapping around the ends; None for an empty list or an index out of range.',
        code='''
            def circular_neighbors(items, index):
                n = len(items)
                if n == 0:
                    return None
                if index < 0 or index >= n:
                    return None
                return items[(index - 1) % n], items[(index + 1) % n]
        ''',
        calls=['circular_neighbors([1, 2, 3], 0)', 'circular_neighbors([1, 2, 3], 2)',
               'circular_neighbors([1, 2, 3], 1)', 'circular_neighbors([1, 2, 3], 3)',
               'circular_neighbors([1, 2, 3], -1)', 'circular_neighbors([], 0)', 'circular_neighbors([9], 0)',
               "circular_neighbors(['a', 'b', 'c', 'd'], 3)"],
    ),
]
