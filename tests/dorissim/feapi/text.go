package feapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// cellValue renders a normalized value the way the FE's query API does:
// integers and finite floats as JSON numbers, everything else in Doris's
// text form (storage.FormatValue) as a JSON string.
func cellValue(t storage.Type, v any) any {
	if v == nil {
		return nil
	}
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case int8, int16, int32, int64:
		return x
	case float32:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return storage.FormatValue(t, v)
		}
		return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return storage.FormatValue(t, v)
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return storage.FormatValue(t, v)
}

// metaType is the type name the query API reports for a column.
func metaType(t storage.Type) string {
	s := t.String()
	if i := strings.IndexAny(s, "(<"); i > 0 {
		s = s[:i]
	}
	return s
}

// rowCells renders one row; asText renders every non-NULL cell as a string.
func rowCells(cols []storage.Column, row []any, asText bool) ([]any, error) {
	if len(row) != len(cols) {
		return nil, fmt.Errorf("row has %d values for %d columns", len(row), len(cols))
	}
	cells := make([]any, len(row))
	for i, v := range row {
		cells[i] = cellValue(cols[i].Type, v)
		if asText && v != nil {
			cells[i] = storage.FormatValue(cols[i].Type, v)
		}
	}
	return cells, nil
}
