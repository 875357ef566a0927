package output

// How a message column's values fit an existing target column. The Doris
// type of a column to add comes from ddl.ColumnType, the mapping
// create_tables uses.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/schema"
)

// fit is how a message column's values go into an existing target column.
type fit int

const (
	fitOK    fit = iota // loads as it is (Doris converts, or the Common type is too coarse to tell)
	fitWiden            // the target column must be widened first, to widenTo
	fitNo               // a narrowing or a type Doris cannot convert
)

// targetType is a Doris column type as SHOW CREATE TABLE prints it,
// reduced to its name and numeric arguments.
type targetType struct {
	name string // upper case, e.g. DECIMAL, VARCHAR, ARRAY
	args []int
}

func parseTargetType(s string) targetType {
	s = strings.TrimSpace(s)
	end := strings.IndexAny(s, "(<")
	if end < 0 {
		return targetType{name: strings.ToUpper(s)}
	}
	t := targetType{name: strings.ToUpper(s[:end])}
	if s[end] == '(' {
		if close := strings.IndexByte(s, ')'); close > end {
			for _, a := range strings.Split(s[end+1:close], ",") {
				if n, err := strconv.Atoi(strings.TrimSpace(a)); err == nil {
					t.args = append(t.args, n)
				}
			}
		}
	}
	return t
}

func (t targetType) arg(i int) int {
	if i < len(t.args) {
		return t.args[i]
	}
	return -1
}

// typeFit judges a message column of Common type c against the target's
// column type. Only what the Common type can prove is judged: an INT32 may
// be a TINYINT at the source, a STRING of any length; a coarse match loads
// as today and Doris itself refuses a value that does not fit (strict mode)
// or converts it. widenTo is the target's new type for fitWiden.
func typeFit(c schema.Common, target string) (f fit, widenTo string) {
	t := parseTargetType(target)
	switch t.name {
	case "STRING", "VARCHAR", "CHAR", "TEXT", "JSON", "JSONB", "VARIANT", "IPV4", "IPV6":
		return fitOK, ""
	}
	if !knownTargets[t.name] && !isDecimal(t.name) {
		return fitOK, "" // a type this mapping does not know (HLL, BITMAP, ...): not judged
	}
	switch c.Type {
	case schema.Boolean:
		return oneOf(t.name, "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT")
	case schema.Int32:
		if isDecimal(t.name) || oneOfBool(t.name, "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "LARGEINT", "FLOAT", "DOUBLE") {
			return fitOK, ""
		}
	case schema.Int64:
		switch {
		case oneOfBool(t.name, "BIGINT", "LARGEINT", "DOUBLE"):
			return fitOK, ""
		case oneOfBool(t.name, "TINYINT", "SMALLINT", "INT", "INTEGER"):
			return fitWiden, "BIGINT"
		case isDecimal(t.name):
			return fitOK, ""
		}
	case schema.Float32:
		if oneOfBool(t.name, "FLOAT", "DOUBLE") || isDecimal(t.name) {
			return fitOK, ""
		}
	case schema.Float64:
		switch {
		case t.name == "DOUBLE" || isDecimal(t.name):
			return fitOK, ""
		case t.name == "FLOAT":
			return fitWiden, "DOUBLE"
		}
	case schema.Decimal:
		return decimalFit(c, t)
	case schema.BigDecimal:
		if t.name == "LARGEINT" || isDecimal(t.name) {
			return fitOK, ""
		}
	case schema.Date:
		if oneOfBool(t.name, "DATE", "DATEV2", "DATETIME", "DATETIMEV2") {
			return fitOK, ""
		}
	case schema.Timestamp:
		if oneOfBool(t.name, "DATETIME", "DATETIMEV2") {
			return fitOK, ""
		}
	case schema.Array:
		// doris_binlog sends a MAP with a nested key as an array of entries.
		return oneOf(t.name, "ARRAY", "MAP")
	case schema.Map:
		return oneOf(t.name, "MAP", "STRUCT")
	case schema.Object:
		return oneOf(t.name, "STRUCT", "MAP")
	case schema.ByteArray, schema.UUID, schema.TimeOfDay, schema.String, schema.Any:
		// Only a text or JSON column (above) holds these.
	}
	return fitNo, ""
}

// decimalFit: a DECIMAL column holds DECIMAL(p,s) when it keeps at least
// s fractional and p-s integer digits. One with the same scale and fewer
// digits is widened (Doris raises a decimal's precision, never its scale).
func decimalFit(c schema.Common, t targetType) (fit, string) {
	if c.Logical == nil || c.Logical.Decimal == nil {
		return fitOK, ""
	}
	p, s := int(c.Logical.Decimal.Precision), int(c.Logical.Decimal.Scale)
	switch {
	case t.name == "LARGEINT" && s == 0 && p <= 38, t.name == "BIGINT" && s == 0 && p <= 18:
		return fitOK, ""
	case !isDecimal(t.name):
		return fitNo, ""
	}
	tp, ts := t.arg(0), t.arg(1)
	if tp < 0 {
		return fitOK, "" // DECIMAL without arguments: Doris's default, not judged
	}
	ts = max(ts, 0)
	switch {
	case ts >= s && tp-ts >= p-s:
		return fitOK, ""
	case ts == s && tp < p:
		return fitWiden, fmt.Sprintf("DECIMAL(%d, %d)", p, s)
	}
	return fitNo, ""
}

// knownTargets are the target types typeFit judges; any other loads as it
// did before schema evolution.
var knownTargets = map[string]bool{
	"BOOLEAN": true, "TINYINT": true, "SMALLINT": true, "INT": true, "INTEGER": true, "BIGINT": true, "LARGEINT": true,
	"FLOAT": true, "DOUBLE": true, "DATE": true, "DATEV2": true, "DATETIME": true, "DATETIMEV2": true,
	"ARRAY": true, "MAP": true, "STRUCT": true,
}

func isDecimal(name string) bool { return strings.HasPrefix(name, "DECIMAL") }

func oneOfBool(name string, names ...string) bool {
	for _, n := range names {
		if name == n {
			return true
		}
	}
	return false
}

func oneOf(name string, names ...string) (fit, string) {
	if oneOfBool(name, names...) {
		return fitOK, ""
	}
	return fitNo, ""
}
