package doris

import (
	"slices"
	"strings"
	"testing"
)

func TestParseTableIdentifier(t *testing.T) {
	ok := map[string][2]string{
		"sales.orders": {"sales", "orders"},
		"`my.db`.`t`":  {"my.db", "t"},
		"`a``b`.c":     {"a`b", "c"},
		"db.`t.x`":     {"db", "t.x"},
		"`````x`.y":    {"``x", "y"},
		"数据.表":         {"数据", "表"},
	}
	for in, want := range ok {
		db, tbl, err := ParseTableIdentifier(in)
		if err != nil || db != want[0] || tbl != want[1] {
			t.Errorf("%q: got %q %q %v", in, db, tbl, err)
		}
	}
	for _, bad := range []string{"", "orders", "a.b.c", ".b", "a.", "``.b", "`a.b", "a`b.c", "a .b", "`a`b.c", "`a`.`b`x", "a..b"} {
		_, _, err := ParseTableIdentifier(bad)
		if err == nil {
			t.Errorf("accepted %q", bad)
			continue
		}
		if !strings.HasPrefix(err.Error(), "must be db.table (backtick-quote parts with dots), got ") {
			t.Errorf("%q: message %q", bad, err)
		}
	}
}

func TestParseFENodes(t *testing.T) {
	got, err := ParseFENodes("h1:8030, 10.0.0.2:8031,[::1]:8030")
	if err != nil || !slices.Equal(got, []string{"h1:8030", "10.0.0.2:8031", "[::1]:8030"}) {
		t.Fatalf("%v %v", got, err)
	}
	bad := map[string]string{
		"":                 "at least one",
		"h1":               `entry 1 "h1"`,
		"h1:8030,":         `entry 2 ""`,
		"h1:0":             "port must be 1..65535",
		"h1:65536":         "port must be 1..65535",
		"h1:08030":         "port must be 1..65535",
		"h1:http":          "port must be 1..65535",
		"::1:8030":         "host:port",
		":8030":            "invalid host",
		"h1:8030,h 2:8030": `entry 2`,
	}
	for in, want := range bad {
		_, err := ParseFENodes(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", in, want, err)
		}
	}
}
