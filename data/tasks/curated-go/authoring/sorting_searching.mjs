// Curated tasks: sorting_searching (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
export default [
  {
    name: 'FindRange',
    query: 'Return the first and last index of a target in an ascending slice of ints by binary search, or [-1, -1] when it is absent.',
    code: go`
import "sort"

func FindRange(xs []int, target int) []int {
	lo := sort.SearchInts(xs, target)
	if lo == len(xs) || xs[lo] != target {
		return []int{-1, -1}
	}
	hi := sort.SearchInts(xs, target+1) - 1
	return []int{lo, hi}
}`,
    calls: [{ args: [[1, 2, 2, 2, 3], 2], expected: [1, 3] }, [[1, 2, 3], 4], [[], 1], [[5], 5], [[1, 1, 1], 1], [[1, 3], 2], [[1, 3], 0], [[0, 0, 1], 1], [[-3, -3, 0], -3]],
  },
  {
    name: 'MinRooms',
    query: 'Return the minimum number of rooms needed for meetings given as parallel slices of start and end times, each meeting occupying [start, end) so a room freed at t can be reused at t.',
    code: go`
import "sort"

func MinRooms(starts, ends []int) int {
	s := append([]int{}, starts...)
	e := append([]int{}, ends...)
	sort.Ints(s)
	sort.Ints(e)
	rooms, best, j := 0, 0, 0
	for i := 0; i < len(s); i++ {
		for j < len(e) && e[j] <= s[i] {
			j++
			rooms--
		}
		rooms++
		if rooms > best {
			best = rooms
		}
	}
	return best
}`,
    calls: [[[], []], [[1], [2]], { args: [[1, 2], [3, 4]], expected: 2 }, [[1, 3], [3, 5]], [[0, 5, 15], [30, 10, 20]], [[1, 1, 1], [2, 2, 2]], [[1, 2, 3], [2, 3, 4]], [[9, 1, 4], [10, 5, 9]], [[10, 0], [20, 30]]],
  },
  {
    name: 'PrevSmaller',
    query: 'For each element of a slice of non-negative ints give the nearest earlier element strictly smaller than it, or -1 when there is none, using a monotonic stack.',
    code: go`
func PrevSmaller(xs []int) []int {
	out := make([]int, len(xs))
	stack := []int{}
	for i, x := range xs {
		for len(stack) > 0 && stack[len(stack)-1] >= x {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			out[i] = -1
		} else {
			out[i] = stack[len(stack)-1]
		}
		stack = append(stack, x)
	}
	return out
}`,
    calls: [[[]], [[3]], [[1, 2, 3]], [[3, 2, 1]], [[2, 2]], { args: [[4, 5, 2, 10, 8]], expected: [-1, 4, -1, 2, 2] }, [[1, 3, 0, 2]], [[5, 1, 5]]],
  },
  {
    name: 'SortVersions',
    query: 'Sort dotted version strings numerically part by part ("1.9" before "1.10", "1.0" before "1.0.1"), keeping the input order of equal versions; a part that is not a non-negative integer returns an error.',
    code: go`
import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

func SortVersions(versions []string) ([]string, error) {
	parsed := make([][]int, len(versions))
	for i, v := range versions {
		for _, part := range strings.Split(v, ".") {
			n, err := strconv.Atoi(part)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad version %q", v)
			}
			parsed[i] = append(parsed[i], n)
		}
	}
	idx := make([]int, len(versions))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := parsed[idx[a]], parsed[idx[b]]
		for k := 0; k < len(pa) && k < len(pb); k++ {
			if pa[k] != pb[k] {
				return pa[k] < pb[k]
			}
		}
		return len(pa) < len(pb)
	})
	out := make([]string, len(versions))
	for i, j := range idx {
		out[i] = versions[j]
	}
	return out, nil
}`,
    calls: [{ args: [['1.10', '1.9', '1.2']], expected: ['1.2', '1.9', '1.10'] }, [['1.0.1', '1.0']], [[]], [['2', '10', '1']], [['1.a']], [['1..2']], [['1.-1']], [['0.1', '0.01']], [['3.0.0', '3', '2.9.9']]],
  },
  {
    name: 'FirstMissingPositive',
    query: 'Return the smallest positive integer missing from a slice of ints (1 for an empty slice), ignoring zeros, negatives and duplicates.',
    code: go`
func FirstMissingPositive(xs []int) int {
	present := make(map[int]bool, len(xs))
	for _, x := range xs {
		if x > 0 {
			present[x] = true
		}
	}
	for i := 1; ; i++ {
		if !present[i] {
			return i
		}
	}
}`,
    calls: [[[]], [[1, 2, 3]], { args: [[3, 4, -1, 1]], expected: 2 }, [[7, 8, 9]], [[0]], [[1]], [[2, 2, 1, 1]], [[-5, -1]], [[1, 1000]]],
  },
  {
    name: 'Leaderboard',
    query: 'Order players by higher Score first, then lower Time, then their input order, and return their names.',
    code: go`
import "sort"

type Player struct {
	Name  string
	Score int
	Time  int
}

func Leaderboard(players []Player) []string {
	ps := append([]Player{}, players...)
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Score != ps[j].Score {
			return ps[i].Score > ps[j].Score
		}
		return ps[i].Time < ps[j].Time
	})
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}`,
    calls: [
      [[]],
      [[{ Name: 'a', Score: 1, Time: 5 }]],
      { args: [[{ Name: 'a', Score: 1, Time: 5 }, { Name: 'b', Score: 3, Time: 9 }]], expected: ['b', 'a'] },
      [[{ Name: 'a', Score: 2, Time: 9 }, { Name: 'b', Score: 2, Time: 4 }]],
      [[{ Name: 'a', Score: 2, Time: 4 }, { Name: 'b', Score: 2, Time: 4 }]],
      [[{ Name: 'x', Score: 0, Time: 1 }, { Name: 'y', Score: -1, Time: 0 }, { Name: 'z', Score: 0, Time: 0 }]],
      [[{ Name: 'p', Score: 5, Time: 3 }, { Name: 'q', Score: 7, Time: 8 }, { Name: 'r', Score: 5, Time: 2 }, { Name: 's', Score: 7, Time: 8 }]],
    ],
  },
];
