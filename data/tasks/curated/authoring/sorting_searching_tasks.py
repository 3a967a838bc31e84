"""Curated tasks: sorting and searching. Expected values are computed by build.py from the canonicals."""

TASKS = [
    dict(
        name='first_occurrence',
        query='Binary search a sorted list for the index of the first occurrence of a target value, '
              'or -1 if it is absent.',
        code='''
            def first_occurrence(sorted_items, target):
                lo, hi = 0, len(sorted_items) - 1
                result = -1
                while lo <= hi:
                    mid = (lo + hi) // 2
                    if sorted_items[mid] == target:
                        result = mid
                        hi = mid - 1
                    elif sorted_items[mid] < target:
                        lo = mid + 1
                    else:
                        hi = mid - 1
                return result
        ''',
        calls=['first_occurrence([1, 2, 2, 2, 3], 2)', 'first_occurrence([], 1)', 'first_occurrence([1], 1)',
               'first_occurrence([1, 3, 5], 4)', 'first_occurrence([1, 3, 5], 5)', 'first_occurrence([2, 2, 2], 2)',
               'first_occurrence([1, 3, 5], 0)', 'first_occurrence([1, 3, 5], 6)',
               'first_occurrence([1, 1, 2, 3, 3], 3)'],
    ),
    dict(
        name='insertion_sorted',
        query='Sort a list in ascending order with insertion sort, returning a new list and leaving the input '
              'unchanged.',
        code='''
            def insertion_sorted(items):
                result = list(items)
                for i in range(1, len(result)):
                    key = result[i]
                    j = i - 1
                    while j >= 0 and result[j] > key:
                        result[j + 1] = result[j]
                        j -= 1
                    result[j + 1] = key
                return result
        ''',
        calls=['insertion_sorted([])', 'insertion_sorted([1])', 'insertion_sorted([3, 1, 2])',
               'insertion_sorted([5, 4, 3, 2, 1])', 'insertion_sorted([1, 2, 3])', 'insertion_sorted([2, 1, 2, 1])',
               'insertion_sorted([-1, -5, 0, 3])', "insertion_sorted(['b', 'a', 'c'])", 'insertion_sorted([2, 1])'],
    ),
    dict(
        name='merge_two_sorted',
        query='Merge two already sorted lists into one sorted list in linear time.',
        code='''
            def merge_two_sorted(a, b):
                i = j = 0
                merged = []
                while i < len(a) and j < len(b):
                    if a[i] <= b[j]:
                        merged.append(a[i])
                        i += 1
                    else:
                        merged.append(b[j])
                        j += 1
                merged.extend(a[i:])
                merged.extend(b[j:])
                return merged
        ''',
        calls=['merge_two_sorted([], [])', 'merge_two_sorted([1, 3, 5], [2, 4, 6])', 'merge_two_sorted([], [1, 2])',
               'merge_two_sorted([1, 2], [])', 'merge_two_sorted([1, 2, 3], [4, 5])', 'merge_two_sorted([4, 5], [1, 2, 3])',
               'merge_two_sorted([1, 1], [1])', 'merge_two_sorted([0, 10], [5])', 'merge_two_sorted([-3, 7], [-5, 8, 9])'],
    ),
    dict(
        name='kth_smallest',
        query='Return the k-th smallest element of an unsorted list (k starting at 1), or None when k is out of range.',
        code='''
            def kth_smallest(nums, k):
                if k < 1 or k > len(nums):
                    return None
                return sorted(nums)[k - 1]
        ''',
        calls=['kth_smallest([3, 1, 2], 1)', 'kth_smallest([3, 1, 2], 3)', 'kth_smallest([3, 1, 2], 2)',
               'kth_smallest([3, 1, 2], 4)', 'kth_smallest([3, 1, 2], 0)', 'kth_smallest([], 1)',
               'kth_smallest([7, 7, 1], 2)', 'kth_smallest([5], 1)', 'kth_smallest([9, -2, 4, 0], -1)'],
    ),
    dict(
        name='search_rotated',
        query='Find the index of a target in a sorted array of distinct values that has been rotated at an '
              'unknown pivot, in logarithmic time; -1 if missing.',
        code='''
            def search_rotated(nums, target):
                lo, hi = 0, len(nums) - 1
                while lo <= hi:
                    mid = (lo + hi) // 2
                    if nums[mid] == target:
                        return mid
                    if nums[lo] <= nums[mid]:
                        if nums[lo] <= target < nums[mid]:
                            hi = mid - 1
                        else:
                            lo = mid + 1
                    else:
                        if nums[mid] < target <= nums[hi]:
                            lo = mid + 1
                        else:
                            hi = mid - 1
                return -1
        ''',
        calls=['search_rotated([4, 5, 6, 7, 0, 1, 2], 0)', 'search_rotated([4, 5, 6, 7, 0, 1, 2], 3)',
               'search_rotated([], 1)', 'search_rotated([1], 1)', 'search_rotated([1], 0)', 'search_rotated([3, 1], 1)',
               'search_rotated([5, 1, 3], 5)', 'search_rotated([4, 5, 6, 7, 0, 1, 2], 4)',
               'search_rotated([4, 5, 6, 7, 0, 1, 2], 2)', 'search_rotated([6, 7, 1, 2, 3, 4, 5], 7)'],
    ),
    dict(
        name='count_inversions',
        query='Count the pairs (i, j) with i < j whose elements are out of order (a[i] > a[j]) in a list.',
        code='''
            def count_inversions(nums):
                count = 0
                n = len(nums)
                for i in range(n):
                    for j in range(i + 1, n):
                        if nums[i] > nums[j]:
                            count += 1
                return count
        ''',
        calls=['count_inversions([])', 'count_inversions([1])', 'count_inversions([1, 2, 3])',
               'count_inversions([3, 2, 1])', 'count_inversions([2, 4, 1, 3, 5])', 'count_inversions([1, 1, 1])',
               'count_inversions([5, 4, 3, 2, 1])', 'count_inversions([2, 1, 2])', 'count_inversions([1, 3, 2, 3, 1])'],
    ),
    dict(
        name='peak_index',
        query='Find the index of the peak of a mountain array (strictly increasing then strictly decreasing) '
              'with binary search.',
        code='''
            def peak_index(nums):
                lo, hi = 0, len(nums) - 1
                while lo < hi:
                    mid = (lo + hi) // 2
                    if nums[mid] < nums[mid + 1]:
                        lo = mid + 1
                    else:
                        hi = mid
                return lo
        ''',
        calls=['peak_index([1])', 'peak_index([1, 2])', 'peak_index([2, 1])', 'peak_index([1, 3, 2])',
               'peak_index([1, 2, 3, 4, 5])', 'peak_index([5, 4, 3])', 'peak_index([0, 2, 4, 6, 5, 1])',
               'peak_index([1, 5, 4, 3, 2, 0])'],
    ),
    dict(
        name='merge_overlapping_intervals',
        query='Merge all overlapping or touching [start, end] intervals and return them sorted by start.',
        code='''
            def merge_overlapping_intervals(intervals):
                result = []
                for start, end in sorted(intervals):
                    if result and start <= result[-1][1]:
                        result[-1][1] = max(result[-1][1], end)
                    else:
                        result.append([start, end])
                return result
        ''',
        calls=['merge_overlapping_intervals([])', 'merge_overlapping_intervals([[1, 3], [2, 6], [8, 10]])',
               'merge_overlapping_intervals([[1, 4], [4, 5]])', 'merge_overlapping_intervals([[5, 6], [1, 2]])',
               'merge_overlapping_intervals([[1, 10], [2, 3]])', 'merge_overlapping_intervals([[1, 2]])',
               'merge_overlapping_intervals([[3, 4], [1, 2], [2, 3]])', 'merge_overlapping_intervals([[1, 2], [3, 4]])'],
    ),
    dict(
        name='pair_with_sum_sorted',
        query='In a sorted list, find the indices of two different elements that add up to a target using the '
              'two-pointer technique; None if no such pair exists.',
        code='''
            def pair_with_sum_sorted(nums, target):
                left, right = 0, len(nums) - 1
                while left < right:
                    s = nums[left] + nums[right]
                    if s == target:
                        return (left, right)
                    if s < target:
                        left += 1
                    else:
                        right -= 1
                return None
        ''',
        calls=['pair_with_sum_sorted([1, 2, 3, 4, 6], 6)', 'pair_with_sum_sorted([2, 7, 11, 15], 9)',
               'pair_with_sum_sorted([1, 2], 4)', 'pair_with_sum_sorted([], 0)', 'pair_with_sum_sorted([3], 6)',
               'pair_with_sum_sorted([-3, -1, 0, 2, 5], -4)', 'pair_with_sum_sorted([1, 3, 5, 7], 12)',
               'pair_with_sum_sorted([0, 0], 0)', 'pair_with_sum_sorted([1, 2, 3, 9], 8)'],
    ),
    dict(
        name='counting_sort_ints',
        query='Sort a list of integers (negatives allowed) with counting sort over the range between the '
              'minimum and maximum value.',
        code='''
            def counting_sort_ints(nums):
                if not nums:
                    return []
                lo = min(nums)
                counts = [0] * (max(nums) - lo + 1)
                for x in nums:
                    counts[x - lo] += 1
                result = []
                for offset, c in enumerate(counts):
                    result.extend([offset + lo] * c)
                return result
        ''',
        calls=['counting_sort_ints([])', 'counting_sort_ints([3, 1, 2])', 'counting_sort_ints([5])',
               'counting_sort_ints([2, 2, 1, 1])', 'counting_sort_ints([-1, -3, 2, 0])', 'counting_sort_ints([4, 4, 4])',
               'counting_sort_ints([10, -10])', 'counting_sort_ints([3, 0, 3, 1])'],
    ),
]
