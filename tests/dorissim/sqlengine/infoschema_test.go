package sqlengine

import (
	"fmt"
	"testing"
)

// Doris compares names byte by byte: paging through information_schema by
// `TABLE_NAME > 'last'` must not hide a name that differs only in case.
func TestInfoSchemaComparesNamesByteWise(t *testing.T) {
	eng, _ := newTestEngine(t, nil)
	s := eng.NewSession("root")
	defer s.Close()
	mustExec(t, s, "CREATE DATABASE shop")
	mustExec(t, s, "CREATE DATABASE Shop2")
	for _, name := range []string{"b", "a", "A"} {
		mustExec(t, s, "CREATE TABLE shop.`"+name+"` (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
	}
	for q, want := range map[string]string{
		"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 'shop' ORDER BY TABLE_NAME":                      "[[A] [a] [b]]",
		"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME > 'A' ORDER BY TABLE_NAME": "[[a] [b]]",
		"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'B'":                     "[]",
		"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 'SHOP'":                                          "[]",
		"SELECT SCHEMA_NAME FROM information_schema.schemata WHERE SCHEMA_NAME > 'S' ORDER BY SCHEMA_NAME":                      "[[Shop2] [information_schema] [shop]]",
		"SELECT SCHEMA_NAME FROM information_schema.schemata WHERE SCHEMA_NAME > 'Shop2' ORDER BY SCHEMA_NAME":                  "[[information_schema] [shop]]",
	} {
		cols, rows := mustRows(t, s, q)
		if got := fmt.Sprint(textRows(cols, rows)); got != want {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	}
}
