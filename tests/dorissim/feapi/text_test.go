package feapi

import (
	"testing"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// The statement API shows the same text form as the MySQL protocol: nested
// strings wrapped in '"' and not escaped (storage.FormatValue).
func TestRowCellsNestedStringsAsDoris(t *testing.T) {
	str := storage.Type{Kind: storage.String}
	cols := []storage.Column{
		{Name: "arr", Type: storage.Type{Kind: storage.Array, Elem: &str}},
		{Name: "m", Type: storage.Type{Kind: storage.Map, Key: &str, Value: &str}},
		{Name: "n", Type: storage.Type{Kind: storage.BigInt}},
	}
	row := []any{[]any{`a"b`, `x<y`}, storage.MapValue{Keys: []any{"k"}, Values: []any{`\v`}}, int64(7)}
	cells, err := rowCells(cols, row, false)
	if err != nil {
		t.Fatal(err)
	}
	if cells[0] != `["a"b", "x<y"]` || cells[1] != `{"k":"\v"}` || cells[2] != int64(7) {
		t.Fatalf("cells = %#v", cells)
	}
	if cells, _ = rowCells(cols, row, true); cells[2] != "7" {
		t.Fatalf("text cells = %#v", cells)
	}
}
