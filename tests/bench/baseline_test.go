package bench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/flight"
)

// pathResult is one in-process read of a whole table.
type pathResult struct {
	rows  int64
	bytes int64 // JSON message bytes (MySQL path) or Arrow buffer bytes (Flight path)
	wall  time.Duration
}

// encoding says how a MySQL text value becomes the JSON that doris_binlog
// writes for the same Doris type.
type encoding int

const (
	encNumber encoding = iota // integers, floats: as sent
	encString                 // strings, decimals, dates, datetimes: JSON strings
	encBool                   // BOOLEAN: true/false
)

func encodingOf(ct *sql.ColumnType) encoding {
	switch t := strings.ToUpper(ct.DatabaseTypeName()); {
	case t == "BOOLEAN" || t == "BOOL":
		return encBool
	case strings.Contains(t, "INT") || t == "FLOAT" || t == "DOUBLE":
		return encNumber
	default:
		return encString
	}
}

// mysqlPath reads the table with go-sql-driver and builds the same JSON
// messages and metadata as a doris_binlog snapshot, in one goroutine: the
// path the Doris docs advise against for bulk reads.
func mysqlPath(ctx context.Context, s *sim, table string, boolCols map[string]bool) (pathResult, error) {
	start := time.Now()
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf("SELECT * FROM `%s`.`%s`", benchDB, table))
	if err != nil {
		return pathResult{}, fmt.Errorf("SELECT * FROM %s.%s over MySQL: %w", benchDB, table, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return pathResult{}, err
	}
	keys := make([][]byte, len(cts))
	encs := make([]encoding, len(cts))
	for i, ct := range cts {
		prefix := ","
		if i == 0 {
			prefix = "{"
		}
		keys[i] = appendJSONString([]byte(prefix), ct.Name())
		keys[i] = append(keys[i], ':')
		encs[i] = encodingOf(ct)
		if boolCols[ct.Name()] {
			encs[i] = encBool
		}
	}
	vals := make([]sql.RawBytes, len(cts))
	dest := make([]any, len(cts))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var res pathResult
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return res, fmt.Errorf("scanning %s.%s over MySQL: %w", benchDB, table, err)
		}
		body := make([]byte, 0, 256)
		for i, v := range vals {
			body = append(body, keys[i]...)
			body = appendMySQLValue(body, v, encs[i])
		}
		body = append(body, '}')
		msg := service.NewMessage(body)
		msg.MetaSetMut("operation", "read")
		msg.MetaSetMut("database_schema", benchDB)
		msg.MetaSetMut("table", table)
		res.rows++
		res.bytes += int64(len(body))
	}
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("reading %s.%s over MySQL: %w", benchDB, table, err)
	}
	res.wall = time.Since(start)
	return res, nil
}

func appendMySQLValue(b []byte, v sql.RawBytes, enc encoding) []byte {
	switch {
	case v == nil:
		return append(b, "null"...)
	case enc == encNumber:
		return append(b, v...)
	case enc == encBool:
		if len(v) == 1 && v[0] == '0' || strings.EqualFold(string(v), "false") {
			return append(b, "false"...)
		}
		return append(b, "true"...)
	default:
		return appendJSONString(b, string(v))
	}
}

// appendJSONString escapes like encoding/json (without HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&15])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// flightPath is the ceiling for our conversion: one Flight SQL query of the
// table, every value read through its typed array, nothing built.
func flightPath(ctx context.Context, s *sim, query string) (pathResult, int64, error) {
	start := time.Now()
	fc, err := flight.Dial(ctx, flight.Config{Addr: s.flight, Username: "root", ConnectTimeout: 30 * time.Second})
	if err != nil {
		return pathResult{}, 0, fmt.Errorf("dial Flight SQL %s: %w", s.flight, err)
	}
	defer fc.Close()
	var res pathResult
	var sink int64
	err = fc.Query(ctx, query, func(rec arrow.RecordBatch) error {
		n := int(rec.NumRows())
		for _, col := range rec.Columns() {
			sink += touchColumn(col, n)
			for _, buf := range col.Data().Buffers() {
				if buf != nil {
					res.bytes += int64(buf.Len())
				}
			}
		}
		res.rows += int64(n)
		return nil
	})
	if err != nil {
		return res, sink, fmt.Errorf("Flight SQL %q on %s: %w", query, s.flight, err)
	}
	res.wall = time.Since(start)
	return res, sink, nil
}

// touchColumn reads every value through its typed array, choosing the type
// once per column, so that the decode cannot be skipped.
func touchColumn(col arrow.Array, n int) int64 {
	switch a := col.(type) {
	case *array.Int8:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int16:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int32:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int64:
		return sumValues(a, n, a.Value)
	case *array.Float32:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i)) })
	case *array.Float64:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i)) })
	case *array.String:
		return sumValues(a, n, func(i int) int64 { return int64(len(a.Value(i))) })
	case *array.Decimal128:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i).LowBits()) })
	case *array.Timestamp:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i)) })
	case *array.Date32:
		return sumValues(a, n, func(i int) int64 { return int64(a.Value(i)) })
	case *array.Boolean:
		return sumValues(a, n, func(i int) int64 {
			if a.Value(i) {
				return 1
			}
			return 0
		})
	default:
		return sumValues(col, n, func(i int) int64 { return int64(len(col.ValueStr(i))) })
	}
}

func sumValues(col arrow.Array, n int, value func(int) int64) int64 {
	var sum int64
	for i := 0; i < n; i++ {
		if col.IsValid(i) {
			sum += value(i)
		}
	}
	return sum
}
