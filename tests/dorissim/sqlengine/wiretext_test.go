package sqlengine

import (
	"testing"
)

// The MySQL protocol shows nested strings as Doris's BE writes them: wrapped
// in '"' with nothing escaped (storage.FormatValue), so ['a"b', 'c\d'] reads
// back as ["a"b", "c\d"], not as a JSON or Go quoted string.
func TestWireRowNestedStringsAsDoris(t *testing.T) {
	s, _, _ := newKV(t)
	mustExec(t, s, `CREATE TABLE nested (id INT, arr ARRAY<STRING>, st STRUCT<s:STRING, d:DATE>, dbl DOUBLE)
DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`)
	mustExec(t, s, `INSERT INTO nested VALUES (1, '["a\\"b", "c\\\\d"]', '{"s": "x<y", "d": "2026-01-02"}', 123456789)`)
	cols, rows := mustRows(t, s, "SELECT arr, st, dbl FROM nested")
	vals, _ := wireRow(cols, wireFields(cols), rows[0], nil)
	want := []string{`["a"b", "c\d"]`, `{"s":"x<y", "d":"2026-01-02"}`, "123456789"}
	for i, v := range vals {
		if v.ToString() != want[i] {
			t.Errorf("column %s = %s, want %s", cols[i].Name, v.ToString(), want[i])
		}
	}
}
