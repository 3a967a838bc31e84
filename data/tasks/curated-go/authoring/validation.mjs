// Curated tasks: validation (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
// Sudoku boards for ValidSudoku: a solved grid, an empty one, and single-defect variants of it.
const solved = [
  [5, 3, 4, 6, 7, 8, 9, 1, 2], [6, 7, 2, 1, 9, 5, 3, 4, 8], [1, 9, 8, 3, 4, 2, 5, 6, 7],
  [8, 5, 9, 7, 6, 1, 4, 2, 3], [4, 2, 6, 8, 5, 3, 7, 9, 1], [7, 1, 3, 9, 2, 4, 8, 5, 6],
  [9, 6, 1, 5, 3, 7, 2, 8, 4], [2, 8, 7, 4, 1, 9, 6, 3, 5], [3, 4, 5, 2, 8, 6, 1, 7, 9],
];
const empty = Array.from({ length: 9 }, () => Array(9).fill(0));
const withCells = (base, cells) => {
  const b = base.map((row) => [...row]);
  for (const [r, c, v] of cells) b[r][c] = v;
  return b;
};
export default [
  {
    name: 'IsUUID',
    query: 'Check that a string is a canonical UUID: 36 characters, hex digits (either case) in groups of 8-4-4-4-12 separated by hyphens.',
    code: go`
import "strings"

func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if r != '-' {
				return false
			}
			continue
		}
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}`,
    calls: [{ args: ['123e4567-e89b-12d3-a456-426614174000'], expected: true }, ['123E4567-E89B-12D3-A456-426614174000'], ['123e4567-e89b-12d3-a456-42661417400'], ['123e4567-e89b-12d3-a456-4266141740000'], ['123e4567e-89b-12d3-a456-426614174000'], ['123e4567-e89b-12d3-a456-42661417400g'], ['123e4567e89b12d3a456426614174000'], [''], ['123e4567-e89b-12d3-a4560426614174000']],
  },
  {
    name: 'IsValidIBAN',
    query: 'Validate an IBAN: spaces ignored, letters in any case, 15 to 34 characters of letters and digits, passing the ISO 13616 mod-97 check (the first four characters moved to the end, letters as 10-35, remainder 1).',
    code: go`
import "strings"

func IsValidIBAN(iban string) bool {
	s := strings.ToUpper(strings.ReplaceAll(iban, " ", ""))
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	s = s[4:] + s[:4]
	rem := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			rem = (rem*10 + int(r-'0')) % 97
		case r >= 'A' && r <= 'Z':
			rem = (rem*100 + int(r-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}`,
    calls: [{ args: ['GB82 WEST 1234 5698 7654 32'], expected: true }, ['GB82 WEST 1234 5698 7654 33'], ['DE89 3704 0044 0532 0130 00'], ['NL91ABNA0417164300'], ['gb82 west 1234 5698 7654 32'], ['NO93 8601 1117 947'], ['GB82-WEST-1234-5698-7654-32'], ['GB82'], ['FR14 2004 1010 0505 0001 3M02 606']],
  },
  {
    name: 'ValidCronField',
    query: 'Validate one cron field against its allowed range [min, max]: "*", "*/step" with 1 <= step <= max, a value, a "lo-hi" range with lo <= hi, or a comma-separated list of those; an empty field is invalid.',
    code: go`
import (
	"strconv"
	"strings"
)

func ValidCronField(field string, min, max int) bool {
	if field == "" {
		return false
	}
	for _, part := range strings.Split(field, ",") {
		if !validCronPart(part, min, max) {
			return false
		}
	}
	return true
}

func validCronPart(part string, min, max int) bool {
	if part == "*" {
		return true
	}
	if step, ok := strings.CutPrefix(part, "*/"); ok {
		n, err := strconv.Atoi(step)
		return err == nil && n >= 1 && n <= max
	}
	lo, hi, isRange := strings.Cut(part, "-")
	a, err := strconv.Atoi(lo)
	if err != nil || a < min || a > max {
		return false
	}
	if !isRange {
		return true
	}
	b, err := strconv.Atoi(hi)
	return err == nil && b >= a && b <= max
}`,
    calls: [['*', 0, 59], { args: ['5', 0, 59], expected: true }, ['60', 0, 59], ['0', 1, 12], ['1-5', 0, 6], ['5-1', 0, 6], ['*/15', 0, 59], ['*/0', 0, 59], ['1,3,x', 0, 6], ['1,2,6', 0, 6]],
  },
  {
    name: 'IsValidCIDR',
    query: 'Validate IPv4 CIDR notation "a.b.c.d/n": four decimal octets 0-255 and a prefix length 0-32, with no leading zeros, signs or missing parts.',
    code: go`
import (
	"strconv"
	"strings"
)

func IsValidCIDR(s string) bool {
	addr, prefix, ok := strings.Cut(s, "/")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(prefix)
	if err != nil || n < 0 || n > 32 || prefix != strconv.Itoa(n) {
		return false
	}
	octets := strings.Split(addr, ".")
	if len(octets) != 4 {
		return false
	}
	for _, o := range octets {
		v, err := strconv.Atoi(o)
		if err != nil || v < 0 || v > 255 || o != strconv.Itoa(v) {
			return false
		}
	}
	return true
}`,
    calls: [{ args: ['10.0.0.0/8'], expected: true }, ['192.168.1.1/32'], ['0.0.0.0/0'], ['10.0.0.0/33'], ['10.0.0.0'], ['256.0.0.0/8'], ['10.0.0/8'], ['10.01.0.0/8'], ['10.0.0.0/08'], ['255.255.255.255/-1']],
  },
  {
    name: 'ConfigErrors',
    query: 'Validate a Config struct and list its problems in field order: Host must not be blank, Port must be 1-65535, Retries 0-10 and Timeout positive; a valid config gives an empty slice.',
    code: go`
import "strings"

type Config struct {
	Host    string
	Port    int
	Retries int
	Timeout float64
}

func ConfigErrors(c Config) []string {
	errs := []string{}
	if strings.TrimSpace(c.Host) == "" {
		errs = append(errs, "host is required")
	}
	if c.Port < 1 || c.Port > 65535 {
		errs = append(errs, "port must be 1-65535")
	}
	if c.Retries < 0 || c.Retries > 10 {
		errs = append(errs, "retries must be 0-10")
	}
	if c.Timeout <= 0 {
		errs = append(errs, "timeout must be positive")
	}
	return errs
}`,
    calls: [
      { args: [{ Host: 'db', Port: 5432, Retries: 3, Timeout: 1.5 }], expected: [] },
      [{ Host: ' ', Port: 5432, Retries: 3, Timeout: 1.5 }],
      [{ Host: 'db', Port: 0, Retries: 3, Timeout: 1.5 }],
      [{ Host: 'db', Port: 65535, Retries: 0, Timeout: 0.1 }],
      [{ Host: 'db', Port: 65536, Retries: 10, Timeout: 1 }],
      [{ Host: 'db', Port: 1, Retries: 11, Timeout: 1 }],
      [{ Host: 'db', Port: 80, Retries: -1, Timeout: 0 }],
      [{}],
    ],
  },
  {
    name: 'ValidSudoku',
    query: 'Check a partly filled 9x9 Sudoku (0 for empty) for repeated digits in any row, column or 3x3 box; a board that is not 9x9 or holds a value outside 0-9 returns an error.',
    code: go`
import (
	"errors"
	"fmt"
)

func ValidSudoku(board [][]int) (bool, error) {
	if len(board) != 9 {
		return false, errors.New("want 9 rows")
	}
	var rows, cols, boxes [9][10]bool
	for r, row := range board {
		if len(row) != 9 {
			return false, fmt.Errorf("row %d: want 9 cells", r)
		}
		for c, v := range row {
			if v < 0 || v > 9 {
				return false, fmt.Errorf("cell %d,%d: %d out of range", r, c, v)
			}
			if v == 0 {
				continue
			}
			b := (r/3)*3 + c/3
			if rows[r][v] || cols[c][v] || boxes[b][v] {
				return false, nil
			}
			rows[r][v], cols[c][v], boxes[b][v] = true, true, true
		}
	}
	return true, nil
}`,
    calls: [
      { args: [solved], expected: true },
      [empty],
      [withCells(solved, [[4, 4, 0], [0, 0, 0]])],
      { args: [withCells(empty, [[2, 1, 7], [2, 8, 7]])], expected: false },
      [withCells(empty, [[0, 5, 3], [8, 5, 3]])],
      [withCells(empty, [[3, 3, 9], [5, 5, 9]])],
      [withCells(empty, [[6, 2, 9], [8, 8, 9]])],
      [withCells(empty, [[8, 8, 10]])],
      [withCells(empty, [[0, 0, -1]])],
      [empty.slice(0, 8)],
    ],
  },
];
