// Curated tasks: data_transformation (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
export default [
  {
    name: 'TotalsByRegion',
    query: 'Sum the Amount of sales per Region into a map, skipping sales with an empty Region or an Amount below minAmount; no qualifying sales give an empty map.',
    code: go`
type Sale struct {
	Region string
	Amount int
}

func TotalsByRegion(sales []Sale, minAmount int) map[string]int {
	totals := map[string]int{}
	for _, s := range sales {
		if s.Region == "" || s.Amount < minAmount {
			continue
		}
		totals[s.Region] += s.Amount
	}
	return totals
}`,
    calls: [
      { args: [[{ Region: 'eu', Amount: 5 }, { Region: 'us', Amount: 3 }, { Region: 'eu', Amount: 2 }], 0], expected: { eu: 7, us: 3 } },
      [[{ Region: 'eu', Amount: 5 }, { Region: 'us', Amount: 3 }, { Region: 'eu', Amount: 2 }], 3],
      [[{ Region: 'eu', Amount: 5 }, { Region: 'us', Amount: 3 }], 4],
      [[], 0],
      [[{ Region: 'eu', Amount: 1 }], 2],
      [[{ Region: 'x', Amount: -4 }, { Region: 'x', Amount: 10 }], -5],
      [[{ Region: 'a', Amount: 0 }, { Region: '', Amount: 5 }], 0],
      [[{ Region: 'a', Amount: 10 }, { Region: 'b', Amount: 9 }, { Region: 'a', Amount: 11 }], 10],
    ],
  },
  {
    name: 'FormatTable',
    query: 'Format rows of string cells as text lines, padding every column to its widest cell (counted in runes), joining cells with " | ", treating missing cells as empty and trimming trailing spaces.',
    code: go`
import (
	"strings"
	"unicode/utf8"
)

func FormatTable(rows [][]string) []string {
	widths := []int{}
	for _, row := range rows {
		for i, cell := range row {
			n := utf8.RuneCountInString(cell)
			if i >= len(widths) {
				widths = append(widths, n)
			} else if n > widths[i] {
				widths[i] = n
			}
		}
	}
	lines := make([]string, 0, len(rows))
	for _, row := range rows {
		cells := make([]string, len(widths))
		for i := range widths {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			cells[i] = cell + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
		}
		lines = append(lines, strings.TrimRight(strings.Join(cells, " | "), " "))
	}
	return lines
}`,
    calls: [{ args: [[['a', 'bb'], ['ccc', 'd']]], expected: ['a   | bb', 'ccc | d'] }, [[]], [[['x']]], [[['ab'], ['a', 'b']]], [[['é', 'x'], ['ab', 'y']]], [[['']]], [[['a', 'b', 'c']]], [[['long', ''], ['s', 't']]], [[['1', '22', '333'], ['4444', '5', '6']]]],
  },
  {
    name: 'DeltaEncode',
    query: 'Delta-encode a slice of ints: keep the first value and replace each later value by its difference from the previous one; an empty slice stays empty.',
    code: go`
func DeltaEncode(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		if i == 0 {
			out[i] = x
		} else {
			out[i] = x - xs[i-1]
		}
	}
	return out
}`,
    calls: [[[]], [[5]], { args: [[1, 4, 9]], expected: [1, 3, 5] }, [[10, 10, 10]], [[3, 1, 4, 1, 5]], [[-2, 0, -2]], [[0, 100]], [[7, 6, 5, 4]]],
  },
  {
    name: 'ParseRecord',
    query: 'Parse a "name:age:score" line into a Record struct, trimming each field; a wrong field count, an empty name, an age that is not a non-negative integer or a score that is not a number returns an error.',
    code: go`
import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

type Record struct {
	Name  string
	Age   int
	Score float64
}

func ParseRecord(line string) (Record, error) {
	parts := strings.Split(line, ":")
	if len(parts) != 3 {
		return Record{}, fmt.Errorf("want 3 fields, got %d", len(parts))
	}
	name := strings.TrimSpace(parts[0])
	if name == "" {
		return Record{}, errors.New("empty name")
	}
	age, err := strconv.Atoi(strings.TrimSpace(parts[1]))
	if err != nil || age < 0 {
		return Record{}, errors.New("bad age")
	}
	score, err := strconv.ParseFloat(strings.TrimSpace(parts[2]), 64)
	if err != nil {
		return Record{}, err
	}
	return Record{Name: name, Age: age, Score: score}, nil
}`,
    calls: [{ args: ['ann:30:9.5'], expected: { Name: 'ann', Age: 30, Score: 9.5 } }, [' bob : 0 : 1 '], ['ann:30'], ['ann:30:1:2'], [':30:1'], ['ann:-1:1'], ['ann:x:1'], ['ann:30:abc'], ['cy:7:-2.25']],
  },
  {
    name: 'Normalize',
    query: 'Scale non-negative weights so they sum to 1, keeping their order; an empty slice, all-zero weights or any negative weight returns an error.',
    approx: 1e-9,
    code: go`
import "errors"

func Normalize(ws []float64) ([]float64, error) {
	sum := 0.0
	for _, w := range ws {
		if w < 0 {
			return nil, errors.New("negative weight")
		}
		sum += w
	}
	if sum == 0 {
		return nil, errors.New("weights sum to zero")
	}
	out := make([]float64, len(ws))
	for i, w := range ws {
		out[i] = w / sum
	}
	return out, nil
}`,
    calls: [{ args: [[1, 1]], expected: [0.5, 0.5] }, [[1, 3]], [[2]], [[0, 5]], [[]], [[0, 0]], [[1, -1, 2]], [[0.5, 0.25, 0.25]], [[3, 0, 1]]],
  },
  {
    name: 'RowsToMaps',
    query: 'Turn CSV-like rows into maps keyed by the header names, filling missing trailing cells with ""; a row with more cells than the header returns an error.',
    code: go`
import "fmt"

func RowsToMaps(header []string, rows [][]string) ([]map[string]string, error) {
	out := make([]map[string]string, 0, len(rows))
	for i, row := range rows {
		if len(row) > len(header) {
			return nil, fmt.Errorf("row %d has %d cells for %d columns", i, len(row), len(header))
		}
		m := make(map[string]string, len(header))
		for _, name := range header {
			m[name] = ""
		}
		for j := 0; j < len(row); j++ {
			m[header[j]] = row[j]
		}
		out = append(out, m)
	}
	return out, nil
}`,
    calls: [
      { args: [['a', 'b'], [['1', '2']]], expected: [{ a: '1', b: '2' }] },
      [['a', 'b'], [['1']]],
      [['a', 'b'], [['1', '2', '3']]],
      [['a', 'b'], []],
      [['id'], [['x'], ['y'], []]],
      [[], [[]]],
      [[], [['x']]],
      [['k', 'v'], [['x', '1'], ['y', '2']]],
    ],
  },
];
