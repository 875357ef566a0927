package bench

import (
	"fmt"
	"strings"
)

// row is one line of the result table; target empty means informational.
type row struct {
	metric, value, target string
	pass                  *bool
}

func info(metric, value string) row { return row{metric: metric, value: value} }

func check(metric, value, target string, ok bool) row {
	return row{metric: metric, value: value, target: target, pass: &ok}
}

// renderTable prints the rows as a Markdown table, ready for docs/performance.md.
func renderTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| metric | value | target | pass |\n|---|---|---|---|\n")
	for _, r := range rows {
		pass := ""
		if r.pass != nil {
			pass = "no"
			if *r.pass {
				pass = "yes"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.metric, r.value, r.target, pass)
	}
	return b.String()
}

func perSec(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func mb(bytes int64) float64 { return float64(bytes) / (1 << 20) }

func fmtRate(v float64, unit string) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM %s", v/1e6, unit)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk %s", v/1e3, unit)
	default:
		return fmt.Sprintf("%.0f %s", v, unit)
	}
}
