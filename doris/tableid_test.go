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
		"":                 `fenodes entry "" must be host:http_port`,
		"h1":               `fenodes entry "h1" must be host:http_port`,
		"h1:8030,":         `fenodes entry "" must be host:http_port`,
		"h1:0":             `fenodes entry "h1:0" has a port outside 1..65535`,
		"h1:65536":         `fenodes entry "h1:65536" has a port outside 1..65535`,
		"h1:08030":         `fenodes entry "h1:08030" has a port outside 1..65535`,
		"h1:http":          `fenodes entry "h1:http" has a port outside 1..65535`,
		"::1:8030":         `fenodes entry "::1:8030" must be host:http_port`,
		":8030":            `fenodes entry ":8030" must be host:http_port`,
		"h1:8030,h 2:8030": `fenodes entry "h 2:8030" must be host:http_port`,
	}
	for in, want := range bad {
		_, err := ParseFENodes(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", in, want, err)
		}
	}
}

func TestFormatTableIdentifierRoundTrips(t *testing.T) {
	for _, c := range [][2]string{{"shop", "orders"}, {"odd db", "we'ird\"t`â-ble"}, {"my.db", "t"}, {"a", " lead"}} {
		s := FormatTableIdentifier(c[0], c[1])
		db, table, err := ParseTableIdentifier(s)
		if err != nil || db != c[0] || table != c[1] {
			t.Fatalf("%q: %q %q %v", s, db, table, err)
		}
	}
	if got := FormatTableIdentifier("shop", "orders"); got != "shop.orders" {
		t.Fatalf("plain names must stay bare: %q", got)
	}
}
