package storage

import "strings"

// maxInsertErrorMsg is the length Doris caps an INSERT's error text at
// (InsertUtils.getFinalErrorMsg, 512 bytes).
const maxInsertErrorMsg = 512

// errNoPartition is how an INSERT fails in strict mode (enable_insert_strict,
// on by default) when a row fits no partition. The BE filters the row and
// records "no partition for this tuple. tuple=<row>" as the load's first
// error (be/src/exec/sink/vrow_distribution.cpp, with
// Block::dump_data_json of the row; RuntimeState keeps it with the
// ". Src line: " of its source line, empty for INSERT). The FE fails the
// statement with "Insert has filtered data in strict mode"
// (AbstractInsertExecutor.checkStrictModeAndFilterRatio) and
// OlapInsertExecutor.onFail appends ". first_error_msg: <first error>"
// (InsertUtils.getFinalErrorMsg) under ERR_UNKNOWN_ERROR (1105); Doris's
// regression suites expect "no partition for this tuple" from INSERT ...
// VALUES (e.g. datatype_p0/timestamptz/test_timestamptz_storage.groovy).
// Doris also appends ". url: <tracking url>" of the BE's error log; the
// simulator keeps no error log for INSERTs, so it sends no url.
func errNoPartition(cols []Column, row []any) *Error {
	msg := "Insert has filtered data in strict mode"
	first := "no partition for this tuple. tuple=" + tupleJSON(cols, row) + ". Src line: "
	// errCode = 2, detailMessage = comes in front of the text on the wire.
	if len("errCode = 2, detailMessage = "+msg+". first_error_msg: "+first) > maxInsertErrorMsg {
		first = "please use `show load` for detail msg"
	}
	return &Error{Code: CodeGeneric, Name: ErrNameInsertFiltered, Message: msg + ". first_error_msg: " + first}
}

// tupleJSON renders a row as Block::dump_data_json does: one object of
// "name(type)":"value" pairs, unescaped, in a list. The BE's headers name
// its internal types (Int32, Nullable(String)); the simulator names the
// column's SQL type.
func tupleJSON(cols []Column, row []any) string {
	var b strings.Builder
	b.WriteString("[{")
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		v := "NULL"
		if i < len(row) && row[i] != nil {
			v = FormatValue(c.Type, row[i])
		}
		b.WriteString(`"` + c.Name + "(" + c.Type.String() + `)":"` + v + `"`)
	}
	b.WriteString("}]")
	return b.String()
}
