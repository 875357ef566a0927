package feapi

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// separator decodes a Doris separator header; "\x01"-style hex is allowed.
func separator(v, def string) (string, error) {
	if v == "" {
		return def, nil
	}
	if strings.HasPrefix(strings.ToLower(v), `\x`) {
		b, err := hex.DecodeString(v[2:])
		if err != nil {
			return "", fmt.Errorf("invalid hex separator %q: %w", v, err)
		}
		return string(b), nil
	}
	return strings.ReplaceAll(strings.ReplaceAll(v, `\t`, "\t"), `\n`, "\n"), nil
}

// parseCSV splits the body into rows; `\N` is NULL. Lines whose field
// count does not match are filtered, each with the error-log line Doris
// writes for it.
func parseCSV(h http.Header, body []byte, ncols int) ([][]*string, int64, []string, error) {
	colSep, err := separator(h.Get("column_separator"), "\t")
	if err != nil {
		return nil, 0, nil, fmt.Errorf("column_separator: %w", err)
	}
	lineSep, err := separator(h.Get("line_delimiter"), "\n")
	if err != nil {
		return nil, 0, nil, fmt.Errorf("line_delimiter: %w", err)
	}
	text := strings.TrimSuffix(string(body), lineSep)
	if text == "" {
		return nil, 0, nil, nil
	}
	var rows [][]*string
	var total int64
	var filtered []string
	for _, line := range strings.Split(text, lineSep) {
		total++
		line = strings.TrimSuffix(line, "\r")
		fields := strings.Split(line, colSep)
		if len(fields) != ncols {
			filtered = append(filtered, csvRejectReason(len(fields), ncols, lineSep, colSep, line))
			continue
		}
		row := make([]*string, ncols)
		for i, f := range fields {
			if f != `\N` {
				row[i] = &fields[i]
			}
		}
		rows = append(rows, row)
	}
	return rows, total, filtered, nil
}

// csvRejectReason follows the BE's CSV reader error-log text.
func csvRejectReason(got, want int, lineSep, colSep, line string) string {
	cmp := "less than"
	if got > want {
		cmp = "more than"
	}
	return fmt.Sprintf("Reason: actual column number in csv file is %s schema column number.actual number: %d, "+
		"schema column number: %d; line delimiter: [%s], column separator: [%s], . src line [%s];",
		cmp, got, want, lineSep, colSep, line)
}

// parseJSON reads one object per line (or a stream of objects), or with
// strip_outer_array=true a single array of objects.
func parseJSON(h http.Header, body []byte, cols []string, defaults []*string) ([][]*string, int64, error) {
	strip := strings.EqualFold(h.Get("strip_outer_array"), "true")
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var objs []map[string]json.RawMessage
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, int64(len(objs)), fmt.Errorf("parse JSON load data: %w", err)
		}
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) > 0 && trimmed[0] == '[' {
			if !strip {
				return nil, 0, errors.New("JSON data is array-object, `strip_outer_array` must be TRUE.")
			}
			var arr []map[string]json.RawMessage
			if err := json.Unmarshal(trimmed, &arr); err != nil {
				return nil, 0, fmt.Errorf("parse JSON array load data: %w", err)
			}
			objs = append(objs, arr...)
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, int64(len(objs)), fmt.Errorf("JSON load data must be objects: %w", err)
		}
		objs = append(objs, obj)
	}
	rows := make([][]*string, len(objs))
	for i, obj := range objs {
		row, err := jsonRow(obj, cols, defaults)
		if err != nil {
			return nil, int64(len(objs)), fmt.Errorf("JSON row %d: %w", i+1, err)
		}
		rows[i] = row
	}
	return rows, int64(len(objs)), nil
}

// jsonRow takes the row's value of each column. Keys the columns do not
// name are never read; a column the object lacks gets its default, or
// NULL (Doris's NewJsonReader reads the object by the load's slots and
// fills a missing one in _fill_missing_column).
func jsonRow(obj map[string]json.RawMessage, cols []string, defaults []*string) ([]*string, error) {
	row := make([]*string, len(cols))
	for i, c := range cols {
		raw, found := obj[c]
		if !found {
			for k, v := range obj {
				if strings.EqualFold(k, c) {
					raw, found = v, true
					break
				}
			}
		}
		if !found {
			if i < len(defaults) {
				row[i] = defaults[i]
			}
			continue
		}
		s, isNull, err := jsonText(raw)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c, err)
		}
		if !isNull {
			row[i] = &s
		}
	}
	return row, nil
}

// jsonText is the text a JSON value loads as: strings unquoted, nested
// values as compact JSON, everything else verbatim.
func jsonText(raw json.RawMessage) (string, bool, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(t, []byte("null")):
		return "", true, nil
	case len(t) > 0 && t[0] == '"':
		var s string
		err := json.Unmarshal(t, &s)
		return s, false, err
	case len(t) > 0 && (t[0] == '{' || t[0] == '['):
		var b bytes.Buffer
		err := json.Compact(&b, t)
		return b.String(), false, err
	}
	return string(t), false, nil
}

// jsonDefaults is the text of each load column's literal DEFAULT, nil for
// none (or a function such as CURRENT_TIMESTAMP, which the simulator does
// not evaluate here: such a column the object lacks loads NULL).
func jsonDefaults(a *api, db, table string, cols []string) []*string {
	info, err := a.cfg.Backend.Table(db, table)
	if err != nil {
		return nil // the load itself reports the missing table
	}
	out := make([]*string, len(cols))
	for i, name := range cols {
		for _, c := range info.Def.Columns {
			if strings.EqualFold(c.Name, name) && c.Default != nil {
				if _, _, isFunc := storage.DefaultFunction(c); !isFunc {
					d := *c.Default
					out[i] = &d
				}
			}
		}
	}
	return out
}
