// Curated tasks: state_machines (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
export default [
  {
    name: 'Unescape',
    query: 'Decode the backslash escapes \\n, \\t, \\\\, \\" and \\xHH (two hex digits, either case) of a string with a small state machine over its runes; an unknown escape, a bad hex digit or an escape cut off at the end returns an error.',
    code: go`
import (
	"fmt"
	"strings"
)

func Unescape(s string) (string, error) {
	var b strings.Builder
	state := 0 // 0 plain text, 1 after a backslash, 2 and 3 reading the two hex digits of \xHH
	value := 0
	for _, r := range s {
		switch state {
		case 0:
			if r == '\\' {
				state = 1
			} else {
				b.WriteRune(r)
			}
		case 1:
			state = 0
			switch r {
			case 'n':
				b.WriteRune('\n')
			case 't':
				b.WriteRune('\t')
			case '\\', '"':
				b.WriteRune(r)
			case 'x':
				state = 2
				value = 0
			default:
				return "", fmt.Errorf("unknown escape \\%c", r)
			}
		default:
			d := hexDigit(r)
			if d < 0 {
				return "", fmt.Errorf("bad hex digit %q", r)
			}
			value = value*16 + d
			if state == 3 {
				b.WriteRune(rune(value))
				state = 0
			} else {
				state = 3
			}
		}
	}
	if state != 0 {
		return "", fmt.Errorf("unfinished escape at the end of %q", s)
	}
	return b.String(), nil
}

func hexDigit(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}`,
    calls: [{ args: ['a\\nb'], expected: 'a\nb' }, ['tab\\there'], ['back\\\\slash'], ['say \\"hi\\"'], { args: ['\\x41\\x62c'], expected: 'Abc' }, ['\\x7a\\x5A\\x09'], ['bad\\q'], ['end\\'], ['\\x4'], ['\\xg1']],
  },
  {
    name: 'IsNumber',
    query: 'Recognise a decimal number literal with a finite state machine: optional sign, digits with an optional fraction (".5" and "5." allowed but not "."), and an optional exponent e/E with optional sign and at least one digit.',
    code: go`
func IsNumber(s string) bool {
	// 0 start, 1 sign, 2 integer digits, 3 dot with no digits yet, 4 fraction digits,
	// 5 dot after integer digits, 6 exponent marker, 7 exponent sign, 8 exponent digits
	state := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			switch state {
			case 0, 1, 2:
				state = 2
			case 3, 4, 5:
				state = 4
			case 6, 7, 8:
				state = 8
			}
		case r == '+' || r == '-':
			if state == 0 {
				state = 1
			} else if state == 6 {
				state = 7
			} else {
				return false
			}
		case r == '.':
			if state == 0 || state == 1 {
				state = 3
			} else if state == 2 {
				state = 5
			} else {
				return false
			}
		case r == 'e' || r == 'E':
			if state == 2 || state == 4 || state == 5 {
				state = 6
			} else {
				return false
			}
		default:
			return false
		}
	}
	return state == 2 || state == 4 || state == 5 || state == 8
}`,
    calls: [{ args: ['-1.5'], expected: true }, ['+.5'], ['5.'], ['.'], ['1e10'], ['1e'], ['e3'], ['1.2E-3'], ['12a'], ['']],
  },
  {
    name: 'Balance',
    query: 'Apply account operations "deposit N", "withdraw N", "freeze" and "unfreeze" to a zero balance; a non-positive amount, an overdraft, a deposit or withdrawal while frozen, or an unknown operation returns an error.',
    code: go`
import (
	"fmt"
	"strconv"
	"strings"
)

func Balance(ops []string) (int, error) {
	balance := 0
	frozen := false
	for i, op := range ops {
		fields := strings.Fields(op)
		if len(fields) == 0 {
			return 0, fmt.Errorf("op %d: empty", i)
		}
		switch fields[0] {
		case "freeze":
			frozen = true
		case "unfreeze":
			frozen = false
		case "deposit", "withdraw":
			if frozen {
				return 0, fmt.Errorf("op %d: account frozen", i)
			}
			if len(fields) != 2 {
				return 0, fmt.Errorf("op %d: want an amount", i)
			}
			amount, err := strconv.Atoi(fields[1])
			if err != nil || amount <= 0 {
				return 0, fmt.Errorf("op %d: bad amount", i)
			}
			if fields[0] == "withdraw" {
				if amount > balance {
					return 0, fmt.Errorf("op %d: insufficient funds", i)
				}
				amount = -amount
			}
			balance += amount
		default:
			return 0, fmt.Errorf("op %d: unknown %q", i, fields[0])
		}
	}
	return balance, nil
}`,
    calls: [[[]], [['deposit 10']], { args: [['deposit 10', 'withdraw 4']], expected: 6 }, [['deposit 5', 'withdraw 5']], [['deposit 5', 'withdraw 6']], [['freeze', 'deposit 1']], [['freeze', 'unfreeze', 'deposit 3']], [['deposit 0']], [['deposit -3']], [['steal 5']]],
  },
  {
    name: 'SplitArgs',
    query: 'Split a command line into arguments on spaces and tabs, with single or double quotes grouping text (quotes removed, "" giving an empty argument); an unterminated quote returns an error.',
    code: go`
import (
	"errors"
	"strings"
)

func SplitArgs(line string) ([]string, error) {
	args := []string{}
	var cur strings.Builder
	inArg := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			inArg = true
		case r == ' ' || r == '\t':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}`,
    calls: [{ args: ['a b  c'], expected: ['a', 'b', 'c'] }, [''], ['   '], ['"a b" c'], ['\'it"s\''], ['x ""'], ['a"b c"d'], ['"open'], ['a\tb'], ['\'\'']],
  },
  {
    name: 'Allow',
    query: 'Simulate a token-bucket rate limiter that starts full with capacity tokens and regains one token every refillEvery time units (never above capacity, never when refillEvery is not positive), answering for each request time (non-decreasing) whether it is allowed.',
    code: go`
func Allow(times []int, capacity, refillEvery int) []bool {
	out := make([]bool, len(times))
	tokens := capacity
	last := 0
	if len(times) > 0 {
		last = times[0]
	}
	for i, t := range times {
		if refillEvery > 0 {
			gained := (t - last) / refillEvery
			if gained > 0 {
				tokens += gained
				if tokens > capacity {
					tokens = capacity
				}
				last += gained * refillEvery
			}
		}
		if tokens > 0 {
			tokens--
			out[i] = true
		}
	}
	return out
}`,
    calls: [{ args: [[0, 0, 0], 2, 10], expected: [true, true, false] }, [[0, 0, 10], 2, 10], [[0, 0, 5, 10], 2, 10], [[], 3, 1], [[0, 1, 2], 0, 1], [[0, 1, 2, 3], 1, 0], [[0, 100, 100, 100], 2, 1], [[5, 6, 7, 8, 9], 1, 2], [[0, 3, 4, 9], 2, 3]],
  },
  {
    name: 'ReviewState',
    query: 'Run a document review workflow from "draft": submit -> "review", approve (counted, "approved" once approvalsNeeded is reached), reject -> back to "draft" with approvals reset on the next submit, publish from "approved" -> "published"; any other event in a state returns an error.',
    code: go`
import "fmt"

func ReviewState(events []string, approvalsNeeded int) (string, error) {
	state := "draft"
	approvals := 0
	for _, e := range events {
		switch {
		case state == "draft" && e == "submit":
			state = "review"
			approvals = 0
		case state == "review" && e == "approve":
			approvals++
			if approvals >= approvalsNeeded {
				state = "approved"
			}
		case state == "review" && e == "reject":
			state = "draft"
		case state == "approved" && e == "publish":
			state = "published"
		default:
			return "", fmt.Errorf("event %q not allowed in state %q", e, state)
		}
	}
	return state, nil
}`,
    calls: [[[], 2], [['submit'], 2], [['submit', 'approve'], 2], { args: [['submit', 'approve', 'approve'], 2], expected: 'approved' }, [['submit', 'approve', 'approve', 'publish'], 2], [['submit', 'reject'], 1], [['submit', 'approve', 'reject', 'submit', 'approve'], 2], [['publish'], 1], [['submit', 'approve'], 1], [['submit', 'approve', 'approve'], 1]],
  },
];
