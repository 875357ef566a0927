package input

import (
	"fmt"
	"testing"
)

// A summary line names at most listedTables tables, in name order, and
// counts the rest, however many tables there are.
func TestTableListNamesTheFirstFewAndCountsTheRest(t *testing.T) {
	many := make([]string, 300)
	for i := range many {
		many[len(many)-1-i] = fmt.Sprintf("d.t%03d", i) // reverse order: the list sorts
	}
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, "0 tables"},
		{[]string{"d.a"}, "1 table: d.a"},
		{[]string{"d.b", "d.a"}, "2 tables: d.a, d.b"},
		{[]string{"d.e", "d.d", "d.c", "d.b", "d.a"}, "5 tables: d.a, d.b, d.c, d.d, d.e"},
		{[]string{"d.f", "d.e", "d.d", "d.c", "d.b", "d.a"}, "6 tables: d.a, d.b, d.c, d.d, d.e and 1 more"},
		{many, "300 tables: d.t000, d.t001, d.t002, d.t003, d.t004 and 295 more"},
	} {
		if got := tableList(tc.names); got != tc.want {
			t.Errorf("tableList(%d names) = %q, want %q", len(tc.names), got, tc.want)
		}
	}
	in := []string{"d.b", "d.a"}
	tableList(in)
	if in[0] != "d.b" {
		t.Fatalf("tableList reordered its caller's slice: %v", in)
	}
}
