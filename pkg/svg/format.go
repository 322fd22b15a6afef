package svg

import (
	"flamekit/pkg/folded"
	"strconv"
)

// appendF appends v with prec decimals, as C's printf("%.Nf") does.
func appendF(dst []byte, v float64, prec int) []byte {
	return strconv.AppendFloat(dst, v, 'f', prec, 64)
}

// appendNum appends v as Perl prints a number by default.
func appendNum(dst []byte, v float64) []byte { return folded.AppendCount(dst, v) }

// round1 returns v rounded as "%.1f" prints it.
func round1(v float64) float64 {
	var b [32]byte
	r, _ := strconv.ParseFloat(string(appendF(b[:0], v, 1)), 64)
	return r
}

// appendCommas appends the integer digits of s with thousands separators.
func appendCommas(dst []byte, s []byte) []byte {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		dst = append(dst, '-')
		s = s[1:]
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}
