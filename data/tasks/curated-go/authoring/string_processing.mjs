// Curated tasks: string_processing (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
export default [
  {
    name: 'Center',
    query: 'Center a string in a field of the given width (counted in runes) using a fill string, putting the odd extra fill on the right; a width not larger than the string returns it unchanged.',
    code: go`
import (
	"strings"
	"unicode/utf8"
)

func Center(s string, width int, fill string) string {
	n := utf8.RuneCountInString(s)
	if width <= n {
		return s
	}
	total := width - n
	left := total / 2
	right := total - left
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, right)
}`,
    calls: [{ args: ['ab', 6, '*'], expected: '**ab**' }, ['ab', 5, '*'], ['abc', 2, '-'], ['abc', 3, '-'], ['', 3, '.'], ['é', 4, '·'], ['x', 0, '-'], ['hi', -1, '*'], ['abc', 4, '_']],
  },
  {
    name: 'Vigenere',
    query: 'Encrypt text with the Vigenère cipher under a letters-only key (any case), preserving the case of letters and passing other characters through without using up key letters; an empty key or one with a non-letter returns an error.',
    code: go`
import (
	"errors"
	"fmt"
	"strings"
)

func Vigenere(text, key string) (string, error) {
	if key == "" {
		return "", errors.New("empty key")
	}
	shifts := make([]rune, 0, len(key))
	for _, k := range strings.ToLower(key) {
		if k < 'a' || k > 'z' {
			return "", fmt.Errorf("key has non-letter %q", k)
		}
		shifts = append(shifts, k-'a')
	}
	var b strings.Builder
	i := 0
	for _, r := range text {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune('a' + (r-'a'+shifts[i%len(shifts)])%26)
			i++
		case r >= 'A' && r <= 'Z':
			b.WriteRune('A' + (r-'A'+shifts[i%len(shifts)])%26)
			i++
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}`,
    calls: [{ args: ['attack at dawn', 'LEMON'], expected: 'lxfopv ef rnhr' }, ['HELLO', 'a'], ['abc', 'b'], ['xyz', 'c'], ['Hi, You!', 'ab'], ['', 'key'], ['abc', ''], ['abc', 'k3y'], ['Zz', 'B']],
  },
  {
    name: 'NumberToWords',
    query: 'Spell out an integer from 0 to 999 in English words ("three hundred forty-two", "one hundred five", hyphenated tens); anything else returns an error.',
    code: go`
import (
	"fmt"
	"strings"
)

func NumberToWords(n int) (string, error) {
	if n < 0 || n > 999 {
		return "", fmt.Errorf("%d out of range", n)
	}
	ones := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	tens := []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	if n < 20 {
		return ones[n], nil
	}
	words := []string{}
	if n >= 100 {
		words = append(words, ones[n/100], "hundred")
		n %= 100
		if n == 0 {
			return strings.Join(words, " "), nil
		}
	}
	if n < 20 {
		words = append(words, ones[n])
	} else if n%10 == 0 {
		words = append(words, tens[n/10])
	} else {
		words = append(words, tens[n/10]+"-"+ones[n%10])
	}
	return strings.Join(words, " "), nil
}`,
    calls: [[0], [13], [20], [21], [99], [100], [105], { args: [342], expected: 'three hundred forty-two' }, [1000], [-1]],
  },
  {
    name: 'IsPalindrome',
    query: 'Check whether a string reads the same backwards considering only letters and digits (any script) and ignoring case; an empty string is a palindrome.',
    code: go`
import "unicode"

func IsPalindrome(s string) bool {
	rs := []rune{}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			rs = append(rs, unicode.ToLower(r))
		}
	}
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		if rs[i] != rs[j] {
			return false
		}
	}
	return true
}`,
    calls: [[''], ['a'], { args: ['A man, a plan, a canal: Panama'], expected: true }, ['race a car'], ["No 'x' in Nixon"], ['ab'], ['Été'], ['12321'], ['123'], ['Ab,bA']],
  },
  {
    name: 'ExtractInts',
    query: 'Extract every run of ASCII digits from a string as an int, negative when a "-" immediately precedes it, in order of appearance; no digits give an empty slice.',
    code: go`
import "strconv"

func ExtractInts(s string) []int {
	nums := []int{}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if rs[i] < '0' || rs[i] > '9' {
			continue
		}
		start := i
		for i < len(rs) && rs[i] >= '0' && rs[i] <= '9' {
			i++
		}
		n, _ := strconv.Atoi(string(rs[start:i]))
		if start > 0 && rs[start-1] == '-' {
			n = -n
		}
		nums = append(nums, n)
	}
	return nums
}`,
    calls: [{ args: ['a1b22c333'], expected: [1, 22, 333] }, [''], ['no digits'], ['-5 and 10'], ['x-7y'], ['3-4'], ['007'], ['--2'], ['9 to 0'], ['é9']],
  },
  {
    name: 'Slugify',
    query: 'Make a URL slug: lower-case ASCII letters and digits are kept and every run of other characters (including non-ASCII letters) becomes a single "-", with no leading or trailing "-".',
    code: go`
import "strings"

func Slugify(s string) string {
	var b strings.Builder
	pendingDash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if pendingDash && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingDash = false
			b.WriteRune(r)
		} else {
			pendingDash = true
		}
	}
	return b.String()
}`,
    calls: [{ args: ['Hello World'], expected: 'hello-world' }, ['  Hello,   World!  '], [''], ['---'], ['Go 1.20 release'], ['Crème brûlée'], ['a'], ['ABC def9'], ['9z']],
  },
];
