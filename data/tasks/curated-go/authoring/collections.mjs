// Curated tasks: collections (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
export default [
  {
    name: 'TopKeys',
    query: 'Return the k keys of a count map with the highest counts, ties broken alphabetically; k of zero or less gives an empty slice and k beyond the map size gives every key.',
    code: go`
import "sort"

func TopKeys(counts map[string]int, k int) []string {
	keys := make([]string, 0, len(counts))
	for key := range counts {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if k < 0 {
		k = 0
	}
	if k < len(keys) {
		keys = keys[:k]
	}
	return keys
}`,
    calls: [{ args: [{ a: 3, b: 1, c: 2 }, 2], expected: ['a', 'c'] }, [{ a: 1, b: 1 }, 1], [{}, 3], [{ x: 5 }, 0], [{ x: 5 }, -2], [{ a: 2, b: 3, c: 3 }, 3], [{ a: 1, b: 2 }, 5], [{ z: 1, y: 1, x: 1 }, 2]],
  },
  {
    name: 'RotateClockwise',
    query: 'Rotate a rectangular grid of ints 90 degrees clockwise, an m x n grid becoming n x m; an empty grid (or one with empty rows) gives an empty grid.',
    code: go`
func RotateClockwise(grid [][]int) [][]int {
	if len(grid) == 0 {
		return [][]int{}
	}
	rows, cols := len(grid), len(grid[0])
	out := make([][]int, cols)
	for c := 0; c < cols; c++ {
		out[c] = make([]int, rows)
		for r := 0; r < rows; r++ {
			out[c][r] = grid[rows-1-r][c]
		}
	}
	return out
}`,
    calls: [[[]], [[[1]]], { args: [[[1, 2], [3, 4]]], expected: [[3, 1], [4, 2]] }, [[[1, 2, 3]]], [[[1], [2], [3]]], [[[1, 2, 3], [4, 5, 6]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[]]]],
  },
  {
    name: 'ConsecutiveRuns',
    query: 'Split a slice of ints into maximal runs where each element is exactly one more than the previous, keeping the order; an empty slice gives no runs.',
    code: go`
func ConsecutiveRuns(xs []int) [][]int {
	runs := [][]int{}
	for i, x := range xs {
		if i > 0 && x == xs[i-1]+1 {
			last := len(runs) - 1
			runs[last] = append(runs[last], x)
		} else {
			runs = append(runs, []int{x})
		}
	}
	return runs
}`,
    calls: [[[]], [[5]], [[1, 2, 3]], { args: [[1, 3, 4, 5, 7]], expected: [[1], [3, 4, 5], [7]] }, [[3, 2, 1]], [[1, 1, 2]], [[-1, 0, 1, 5]], [[10, 11, 13, 14]]],
  },
  {
    name: 'LastN',
    query: 'Keep the last n values of a stream in a ring buffer and return them oldest first (fewer when the stream is shorter); n of zero or less gives an empty slice.',
    code: go`
func LastN(stream []int, n int) []int {
	if n <= 0 {
		return []int{}
	}
	ring := make([]int, n)
	count := 0
	for _, x := range stream {
		ring[count%n] = x
		count++
	}
	size := count
	if size > n {
		size = n
	}
	out := make([]int, 0, size)
	for i := count - size; i < count; i++ {
		out = append(out, ring[i%n])
	}
	return out
}`,
    calls: [{ args: [[1, 2, 3, 4, 5], 3], expected: [3, 4, 5] }, [[1, 2], 3], [[], 2], [[1, 2, 3], 0], [[1, 2, 3], -1], [[7], 1], [[1, 2, 3, 4], 4], [[1, 2, 3, 4, 5, 6, 7], 2], [[9, 8, 7, 6, 5], 4]],
  },
  {
    name: 'FrequencySort',
    query: 'Sort a copy of a slice of ints by how often each value occurs, most frequent first and equal frequencies by ascending value, keeping every occurrence but dropping values that occur fewer than minCount times; a minCount below 1 returns an error.',
    code: go`
import (
	"fmt"
	"sort"
)

func FrequencySort(xs []int, minCount int) ([]int, error) {
	if minCount < 1 {
		return nil, fmt.Errorf("minCount %d is below 1", minCount)
	}
	freq := map[int]int{}
	for _, x := range xs {
		freq[x]++
	}
	out := []int{}
	for _, x := range xs {
		if freq[x] >= minCount {
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		fi, fj := freq[out[i]], freq[out[j]]
		if fi != fj {
			return fi > fj
		}
		return out[i] < out[j]
	})
	return out, nil
}`,
    calls: [[[], 1], [[1], 1], { args: [[1, 2, 2, 3, 3, 3], 1], expected: [3, 3, 3, 2, 2, 1] }, [[1, 2, 2, 3, 3, 3], 2], [[4, 1, 4, 1], 2], [[5, -1, 5], 1], [[3, 2, 1], 1], [[2, 2, 1, 1, 1, 0], 3], [[7, 7, 7], 4], [[1, 2], 0]],
  },
  {
    name: 'DistinctInWindows',
    query: 'Count the distinct strings in every window of k consecutive items, using a map of counts; k of zero or less, or larger than the slice, gives an empty slice.',
    code: go`
func DistinctInWindows(xs []string, k int) []int {
	out := []int{}
	if k <= 0 || k > len(xs) {
		return out
	}
	counts := map[string]int{}
	for i, x := range xs {
		counts[x]++
		if i >= k {
			old := xs[i-k]
			counts[old]--
			if counts[old] == 0 {
				delete(counts, old)
			}
		}
		if i >= k-1 {
			out = append(out, len(counts))
		}
	}
	return out
}`,
    calls: [{ args: [['a', 'b', 'a', 'c'], 2], expected: [2, 2, 2] }, [['a', 'a', 'a'], 2], [['a', 'b', 'c'], 3], [['a'], 2], [['a', 'b'], 0], [[], 1], [['a', 'b', 'a', 'b', 'c'], 3], [['x', 'y', 'z', 'x'], 1], [['p', 'q', 'p', 'p', 'q'], 4]],
  },
];
