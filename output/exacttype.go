package output

// How a source column's exact Doris type (from doris_schema) fits a target
// column. The Common schema says STRING for every VARCHAR, so a source
// VARCHAR longer than the target's is only seen here.

import "fmt"

// exactFit judges the source's type src against the target column's type.
// judged is false for pairs it has no rule for, which typeFit then judges
// from the Common type as for any other input. A VARCHAR (or CHAR) into a
// shorter VARCHAR is a widening to VARCHAR of the source's length: Doris
// lengthens a VARCHAR in place (a light schema change) and never shortens
// one.
func exactFit(src, target string) (f fit, widenTo string, judged bool) {
	s, t := parseTargetType(src), parseTargetType(target)
	if t.name != "VARCHAR" || (s.name != "VARCHAR" && s.name != "CHAR") {
		return fitOK, "", false
	}
	n, m := s.arg(0), t.arg(0)
	if n < 0 || m < 0 {
		return fitOK, "", false
	}
	if n <= m {
		return fitOK, "", true
	}
	return fitWiden, fmt.Sprintf("VARCHAR(%d)", n), true
}
