package doris

import (
	"fmt"
	"strconv"
	"strings"
)

// parseInt accepts a decimal integer, also when written with a zero fraction
// ("12.0"). Exponent forms are refused rather than evaluated: huge exponents
// would cost unbounded work on hostile input, and the FE never writes them.
func parseInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '.'); i >= 0 && strings.Trim(s[i+1:], "0") == "" && i+1 < len(s) {
		s = s[:i]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not an integer: %q", s)
	}
	return n, nil
}
