// Curated tasks: math_numerical (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check.
const go = String.raw;
export default [
  {
    name: 'FloorDivMod',
    query: 'Return the floor quotient and the remainder with the sign of the divisor (Python-style, -7 and 2 give -4 and 1), unlike Go\'s truncating / and %; a zero divisor returns an error.',
    code: go`
import "errors"

func FloorDivMod(a, b int) (int, int, error) {
	if b == 0 {
		return 0, 0, errors.New("division by zero")
	}
	q, r := a/b, a%b
	if r != 0 && (r < 0) != (b < 0) {
		q--
		r += b
	}
	return q, r, nil
}`,
    calls: [[7, 2], { args: [-7, 2], expected: [-4, 1] }, [7, -2], [-7, -2], [6, 3], [-6, 3], [0, 5], [5, 0], [1, -5]],
  },
  {
    name: 'Fibonacci',
    query: 'Return the n-th Fibonacci number (F(0) = 0, F(1) = 1) as an int64; a negative n, or n above 78 whose value a float64 can no longer hold exactly, returns an error.',
    code: go`
import "errors"

func Fibonacci(n int) (int64, error) {
	if n < 0 {
		return 0, errors.New("negative index")
	}
	if n > 78 {
		return 0, errors.New("too large to be exact in a float64")
	}
	var a, b int64 = 0, 1
	for i := 0; i < n; i++ {
		a, b = b, a+b
	}
	return a, nil
}`,
    calls: [[0], [1], [2], { args: [10], expected: 55 }, [20], [50], [78], [79], [-1]],
  },
  {
    name: 'MeanStdDev',
    query: 'Return the mean and the population standard deviation of a sample; an empty sample returns an error.',
    approx: 1e-9,
    code: go`
import (
	"errors"
	"math"
)

func MeanStdDev(xs []float64) (float64, float64, error) {
	if len(xs) == 0 {
		return 0, 0, errors.New("empty sample")
	}
	n := float64(len(xs))
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean := sum / n
	sq := 0.0
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sq / n), nil
}`,
    calls: [[[]], [[5]], { args: [[2, 4, 4, 4, 5, 5, 7, 9]], expected: [5, 2] }, [[1, 2]], [[-1, 1]], [[3, 3, 3]], [[1, 2, 3, 4]], [[0.5, 1.5]]],
  },
  {
    name: 'DigitSum',
    query: 'Return the sum of the digits of |n| written in a base from 2 to 36 (255 in base 16 gives 30); any other base returns an error.',
    code: go`
import "fmt"

func DigitSum(n, base int) (int, error) {
	if base < 2 || base > 36 {
		return 0, fmt.Errorf("base %d out of range", base)
	}
	if n < 0 {
		n = -n
	}
	sum := 0
	for n > 0 {
		sum += n % base
		n /= base
	}
	return sum, nil
}`,
    calls: [[123, 10], [-123, 10], [0, 10], { args: [255, 16], expected: 30 }, [255, 2], [7, 36], [36, 36], [10, 1], [10, 37], [1000, 10]],
  },
  {
    name: 'Reduce',
    query: 'Reduce the fraction num/den to lowest terms with a positive denominator (0/-5 becomes 0/1); a zero denominator returns an error.',
    code: go`
import "errors"

func Reduce(num, den int) (int, int, error) {
	if den == 0 {
		return 0, 0, errors.New("zero denominator")
	}
	a, b := num, den
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	if den < 0 {
		a = -a
	}
	return num / a, den / a, nil
}`,
    calls: [{ args: [6, 8], expected: [3, 4] }, [-6, 8], [6, -8], [-6, -8], [0, 5], [0, -5], [7, 1], [5, 0], [12, 4]],
  },
  {
    name: 'EvalPoly',
    query: 'Evaluate a polynomial at x by Horner\'s rule, coefficients given from the constant term upwards; no coefficients give 0.',
    approx: 1e-9,
    code: go`
func EvalPoly(coeffs []float64, x float64) float64 {
	result := 0.0
	for i := len(coeffs) - 1; i >= 0; i-- {
		result = result*x + coeffs[i]
	}
	return result
}`,
    calls: [[[], 3], [[5], 10], { args: [[1, 2], 3], expected: 7 }, [[1, 0, 1], 2], [[0, 0, 0, 1], -2], [[2, -3, 1], 1], [[1, 1, 1], 0.5], [[-1, 0, 2], -1]],
  },
];
