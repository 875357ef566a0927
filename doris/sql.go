package doris

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hidden Row Binlog columns, in the order the client selects them.
const (
	ColBinlogTSO = "__DORIS_BINLOG_TSO__"
	ColBinlogLSN = "__DORIS_BINLOG_LSN__"
	ColBinlogOp  = "__DORIS_BINLOG_OP__"
)

// QuoteIdent wraps s in backticks, doubling any inner backtick.
func QuoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// QuoteLiteral wraps s in single quotes, doubling any inner quote. Doris (like
// MySQL) also treats backslash as an escape inside literals, so backslashes
// are doubled too, and NUL is written as \0; without that a trailing
// backslash would escape the closing quote. Use ValidateLiteral first where
// NUL bytes must be refused rather than encoded.
func QuoteLiteral(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// ValidateLiteral refuses values that have no business in a SQL literal:
// NUL bytes and invalid UTF-8.
func ValidateLiteral(s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return errors.New("SQL literal must not contain NUL bytes")
	}
	if !utf8.ValidString(s) {
		return errors.New("SQL literal must be valid UTF-8")
	}
	return nil
}

// QualifiedTable renders `db`.`table`.
func QualifiedTable(db, table string) string {
	return QuoteIdent(db) + "." + QuoteIdent(table)
}

func selectList(cols []string) string {
	if len(cols) == 0 {
		return "*"
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = QuoteIdent(c)
	}
	return strings.Join(quoted, ", ")
}

// SnapshotSQL builds a snapshot split query in the reference connector's
// exact shape: “SELECT `id` FROM `sales`.`orders`  TABLET(1,2) “, with
// ` WHERE <filter>` appended when filter is set. cols nil or empty selects *;
// tablets are written in the order given (callers pass them ascending); the
// TABLET clause is omitted when there are none. filter is raw SQL from the
// user's configuration.
func SnapshotSQL(db, table string, cols []string, tablets []int64, filter string) string {
	return snapshotSQL(db, table, selectList(cols), 0, tablets, filter)
}

// snapshotSQL writes a split query; asOf > 0 adds FOR VERSION AS OF, which
// Doris's grammar puts after the table name and before TABLET(...).
func snapshotSQL(db, table, selected string, asOf int64, tablets []int64, filter string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(selected)
	b.WriteString(" FROM ")
	b.WriteString(QualifiedTable(db, table))
	if asOf > 0 {
		b.WriteString(" FOR VERSION AS OF ")
		b.WriteString(strconv.FormatInt(asOf, 10))
	}
	if len(tablets) > 0 {
		b.WriteString("  TABLET(")
		for i, id := range tablets {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(id, 10))
		}
		b.WriteString(") ")
	}
	if filter != "" {
		b.WriteString(" WHERE ")
		b.WriteString(filter)
	}
	return b.String()
}

// CountUpToSQL counts a table's rows up to limit: the count of a large
// table need go no further than limit rows.
func CountUpToSQL(db, table string, limit int64) string {
	return "SELECT COUNT(*) FROM (SELECT 1 FROM " + QualifiedTable(db, table) + " LIMIT " + strconv.FormatInt(limit, 10) + ") probe"
}

// BinlogCondition is the WHERE condition of every @incr query: without
// update_before rows when ignoreUpdateBefore is set (op code 2, see
// doris-facts §7), and the user's filter, which must have passed
// ValidateFilterExpression, in parentheses so that its OR cannot escape.
// "" means no condition.
func BinlogCondition(ignoreUpdateBefore bool, filter string) string {
	var parts []string
	if ignoreUpdateBefore {
		parts = append(parts, ColBinlogOp+" <> 2")
	}
	if filter != "" {
		parts = append(parts, "("+filter+")")
	}
	return strings.Join(parts, " AND ")
}

// IncrSQLWhere builds the Row Binlog window query in the reference
// connector's exact shape: body columns then the three hidden columns, the
// three @incr parameters, ordered by TSO, LSN, OP. start and end must have
// passed ValidateTimestamp; incrType is sent upper case. ` WHERE <where>`
// comes before the ORDER BY when where (from BinlogCondition) is set; @incr takes a WHERE clause like any
// table reference (doris-facts §5), so Doris filters before transfer.
func IncrSQLWhere(db, table string, cols []string, start, end, incrType, where string) string {
	hidden := ColBinlogTSO + ", " + ColBinlogLSN + ", " + ColBinlogOp
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(selectList(cols))
	b.WriteString(", ")
	b.WriteString(hidden)
	b.WriteString(" FROM ")
	b.WriteString(QualifiedTable(db, table))
	b.WriteString("@incr('startTimestamp' = ")
	b.WriteString(QuoteLiteral(start))
	b.WriteString(", 'endTimestamp' = ")
	b.WriteString(QuoteLiteral(end))
	b.WriteString(", 'incrementType' = ")
	b.WriteString(QuoteLiteral(strings.ToUpper(incrType)))
	b.WriteString(")")
	if where != "" {
		b.WriteString(" WHERE ")
		b.WriteString(where)
	}
	b.WriteString(" ORDER BY ")
	b.WriteString(hidden)
	return b.String()
}
