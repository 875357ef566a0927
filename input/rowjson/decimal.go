package rowjson

import (
	"math/bits"
	"strconv"
)

// maxDecimalDigits bounds the digits of a 256-bit magnitude (2^256 has 78).
const maxDecimalDigits = 80

const pow10e19 = 10000000000000000000

// limbs is a little-endian 256-bit two's complement integer.
type limbs [4]uint64

// negative reports the sign of the n-limb two's complement value.
func (l *limbs) negative(n int) bool { return int64(l[n-1]) < 0 }

// negate replaces the n-limb value by its two's complement negation.
func (l *limbs) negate(n int) {
	carry := uint64(1)
	for j := 0; j < n; j++ {
		l[j], carry = bits.Add64(^l[j], 0, carry)
	}
}

// appendMagnitude appends the unsigned n-limb value in base 10 without
// allocating: it peels 19-digit chunks off with 64-bit divisions.
func appendMagnitude(dst []byte, l limbs, n int) []byte {
	for n > 1 && l[n-1] == 0 {
		n--
	}
	if n == 1 {
		return strconv.AppendUint(dst, l[0], 10)
	}
	var chunks [5]uint64
	k := 0
	for n > 1 || l[0] >= pow10e19 {
		var rem uint64
		for j := n - 1; j >= 0; j-- {
			l[j], rem = bits.Div64(rem, l[j], pow10e19)
		}
		chunks[k] = rem
		k++
		for n > 1 && l[n-1] == 0 {
			n--
		}
	}
	dst = strconv.AppendUint(dst, l[0], 10)
	for k--; k >= 0; k-- {
		dst = appendPadded(dst, chunks[k], 19)
	}
	return dst
}

// appendPadded appends v in base 10, left-padded with zeros to width digits.
func appendPadded(dst []byte, v uint64, width int) []byte {
	var buf [20]byte
	digits := strconv.AppendUint(buf[:0], v, 10)
	for k := len(digits); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// append2 appends v (0..99) as exactly two digits.
func append2(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}

// appendDecimal appends the n-limb two's complement unscaled value with the
// decimal point placed scale digits from the right, keeping every digit of the
// scale (12.3 at scale 2 is "12.30") the way Doris prints DECIMAL(p,s).
func appendDecimal(dst []byte, l limbs, n int, scale int32) []byte {
	neg := l.negative(n)
	if neg {
		l.negate(n)
	}
	var buf [maxDecimalDigits]byte
	digits := appendMagnitude(buf[:0], l, n)
	if neg {
		dst = append(dst, '-')
	}
	if scale <= 0 {
		dst = append(dst, digits...)
		if len(digits) == 1 && digits[0] == '0' {
			return dst
		}
		for ; scale < 0; scale++ {
			dst = append(dst, '0')
		}
		return dst
	}
	s := int(scale)
	if len(digits) > s {
		dst = append(dst, digits[:len(digits)-s]...)
		dst = append(dst, '.')
		return append(dst, digits[len(digits)-s:]...)
	}
	dst = append(dst, '0', '.')
	for z := s - len(digits); z > 0; z-- {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// appendInt64Decimal is the fast path for decimal32/64 unscaled values.
func appendInt64Decimal(dst []byte, v int64, scale int32) []byte {
	return appendDecimal(dst, limbs{uint64(v), uint64(v >> 63)}, 2, scale)
}

// limbsFromLE reads a little-endian two's complement integer of up to 32
// bytes, sign-extending to the next whole limb; it returns the limb count.
func limbsFromLE(b []byte) (limbs, int) {
	var l limbs
	n := (len(b) + 7) / 8
	for i, c := range b {
		l[i/8] |= uint64(c) << (8 * (i % 8))
	}
	if rem := len(b) % 8; rem != 0 && b[len(b)-1]&0x80 != 0 {
		l[n-1] |= ^uint64(0) << (8 * rem)
	}
	return l, n
}
