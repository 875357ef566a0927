package storage

import "fmt"

// Error is the error type every Store method returns for Doris-visible
// failures, so the MySQL and Flight front ends can surface Doris's code and text.
type Error struct {
	Code    int    // MySQL error code: 1105 generic, 5100, 5101, 1049 unknown db, 1146 unknown table, ...
	Name    string // "ERR_INCR_WINDOW_NOT_READY", "ERR_INCR_VISIBLE_WAIT_TIMEOUT", "LABEL_ALREADY_EXISTS", or ""
	Message string // Doris text
}

func (e *Error) Error() string { return e.Message }

// Error codes used by the simulator.
const (
	CodeGeneric          = 1105
	CodeUnknownDB        = 1049
	CodeDBExists         = 1007
	CodeUnknownTable     = 1146
	CodeTableExists      = 1050
	CodeWindowNotReady   = 5100
	CodeVisibleWaitTmout = 5101
)

func errorf(format string, args ...any) *Error {
	return &Error{Code: CodeGeneric, Message: fmt.Sprintf(format, args...)}
}

func errUnknownDB(db string) *Error {
	return &Error{Code: CodeUnknownDB, Message: fmt.Sprintf("Unknown database '%s'", db)}
}

func errUnknownTable(db, table string) *Error {
	return &Error{Code: CodeUnknownTable, Message: fmt.Sprintf("Unknown table '%s' in %s", table, db)}
}
