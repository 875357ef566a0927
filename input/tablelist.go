package input

import (
	"fmt"
	"slices"
	"strings"
)

// listedTables is how many tables a summary log line names. An input may
// follow thousands of tables, and a line that names them all is one no one
// can read; the lines that name every table are at debug level.
const listedTables = 5

// tableList counts and names tables for a summary log line: the first
// listedTables in name order, and how many more there are, as in
// "40 tables: d.t00, d.t01, d.t02, d.t03, d.t04 and 35 more".
func tableList(names []string) string {
	sorted := slices.Sorted(slices.Values(names))
	noun := "tables"
	if len(sorted) == 1 {
		noun = "table"
	}
	if len(sorted) == 0 {
		return "0 tables"
	}
	shown := sorted[:min(len(sorted), listedTables)]
	s := fmt.Sprintf("%d %s: %s", len(sorted), noun, strings.Join(shown, ", "))
	if more := len(sorted) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
