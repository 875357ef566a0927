package schemameta

import "strings"

// hiddenPrefix marks Doris's hidden columns (__DORIS_BINLOG_TSO__, ...),
// which a result may carry but a body never holds.
const hiddenPrefix = "__DORIS_"

// Diff compares the column names of a result (for example the fields of an
// @incr window's Arrow schema) with the schema's columns. added are the
// result's columns the schema lacks, removed the schema's columns the
// result lacks, both in their own order; hidden __DORIS_ columns are
// ignored and names match case-insensitively, as Doris column names do.
// Both empty means the result fits this schema's column set (the order of
// the result's columns is not compared).
func (m *Meta) Diff(columns []string) (added, removed []string) {
	have := make(map[string]bool, len(m.common.Children))
	for _, c := range m.common.Children {
		have[strings.ToLower(c.Name)] = true
	}
	seen := make(map[string]bool, len(columns))
	for _, name := range columns {
		if strings.HasPrefix(strings.ToUpper(name), hiddenPrefix) {
			continue
		}
		l := strings.ToLower(name)
		seen[l] = true
		if !have[l] {
			added = append(added, name)
		}
	}
	for _, c := range m.common.Children {
		if !seen[strings.ToLower(c.Name)] {
			removed = append(removed, c.Name)
		}
	}
	return added, removed
}
