// Curated tasks: bit_manipulation (Go). Expected values are computed by data/tasks/curated-langs.mjs from the
// canonicals (one `go build` per task); a call written {args, expected} is a hand-typed spot check. A Go function
// with several results has them as a JSON array; a nil trailing error is left out.
const go = String.raw;
export default [
  {
    name: 'ExtractBits',
    query: 'Extract width bits of a uint32 starting at bit start (bit 0 least significant) as a number; a negative start or width, or a range past bit 31, returns an error.',
    code: go`
import "errors"

func ExtractBits(n uint32, start, width int) (uint32, error) {
	if start < 0 || width < 0 || start+width > 32 {
		return 0, errors.New("bit range out of bounds")
	}
	if width == 0 {
		return 0, nil
	}
	mask := uint32(1)<<width - 1
	return (n >> start) & mask, nil
}`,
    calls: [{ args: [0xf0, 4, 4], expected: 15 }, [0xf0, 0, 4], [0xabcd, 8, 8], [0xffffffff, 0, 32], [5, 0, 0], [1, 31, 1], [0x80000000, 31, 1], [5, 30, 3], [5, -1, 2], [5, 2, -1]],
  },
  {
    name: 'TrailingZeros',
    query: 'Count the trailing zero bits of a uint64, returning 64 for zero.',
    code: go`
func TrailingZeros(n uint64) int {
	if n == 0 {
		return 64
	}
	count := 0
	for n&1 == 0 {
		n >>= 1
		count++
	}
	return count
}`,
    calls: [{ args: [0], expected: 64 }, [1], [2], [8], { args: [12], expected: 2 }, [2 ** 40], [7], [96], [2 ** 52]],
  },
  {
    name: 'PackBits',
    query: 'Pack a slice of booleans into bytes, most significant bit first, padding the last byte with zero bits; an empty slice gives an empty slice.',
    code: go`
func PackBits(bits []bool) []int {
	out := make([]int, (len(bits)+7)/8)
	for i := 0; i < len(bits); i++ {
		if bits[i] {
			out[i/8] |= 1 << (7 - i%8)
		}
	}
	return out
}`,
    calls: [[[]], { args: [[true]], expected: [128] }, [[false, true]], [Array(8).fill(true)], [Array(9).fill(true)], [[true, false, true, false, true, false, true, false]], [[false, false, false, false, false, false, false, true]], [[false, false, false, false, false, false, false, false, false, true]]],
  },
  {
    name: 'FlagNames',
    query: 'List the names of the flags set in a bit mask, bit i naming names[i], in the order of names; mask bits beyond the names are ignored.',
    code: go`
func FlagNames(mask int, names []string) []string {
	out := []string{}
	for i, name := range names {
		if mask&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}`,
    calls: [[0, ['r', 'w', 'x']], [1, ['r', 'w', 'x']], { args: [5, ['r', 'w', 'x']], expected: ['r', 'x'] }, [7, ['r', 'w', 'x']], [8, ['r', 'w', 'x']], [6, ['r', 'w', 'x']], [3, []], [-1, ['a', 'b']]],
  },
  {
    name: 'SignExtend',
    query: 'Read the low `bits` bits of a uint32 as a two\'s complement signed number (0xF over 4 bits is -1); a bit width outside 1..32 returns an error.',
    code: go`
import "fmt"

func SignExtend(value uint32, bits int) (int32, error) {
	if bits < 1 || bits > 32 {
		return 0, fmt.Errorf("bit width %d out of range", bits)
	}
	shift := 32 - bits
	return int32(value<<shift) >> shift, nil
}`,
    calls: [{ args: [0xf, 4], expected: -1 }, [0x7, 4], [0x8, 4], [0xff, 8], [0x7f, 8], [0x1ff, 8], [5, 32], [1, 1], [3, 0], [3, 33]],
  },
  {
    name: 'Morton',
    query: 'Interleave the bits of two 16-bit coordinates into a 32-bit Morton code, x taking the even bit positions and y the odd ones.',
    code: go`
func Morton(x, y uint16) uint32 {
	var z uint32
	for i := 0; i < 16; i++ {
		z |= uint32(x>>i&1) << (2 * i)
		z |= uint32(y>>i&1) << (2*i + 1)
	}
	return z
}`,
    calls: [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], { args: [3, 5], expected: 39 }, [65535, 0], [0, 65535], [65535, 65535]],
  },
];
