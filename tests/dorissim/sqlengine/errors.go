package sqlengine

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// asStorageError turns any error into the *storage.Error the contract
// promises: storage errors keep their code and text, GMS errors get their
// MySQL code (1105 when GMS has none) and their own text.
func asStorageError(err error) *storage.Error {
	if err == nil {
		return nil
	}
	var se *storage.Error
	if errors.As(err, &se) {
		return se
	}
	switch w := err.(type) {
	case sql.WrappedInsertError:
		return asStorageError(w.Cause)
	case sql.WrappedTypeConversionError:
		return asStorageError(w.Err)
	}
	me := sql.CastSQLError(err)
	code := storage.CodeGeneric
	if me != nil && me.Num > 0 && me.Num != 1105 {
		code = me.Num
	}
	msg := err.Error()
	if me != nil && me.Message != "" {
		msg = me.Message
	}
	return dorisMissingDefault(&storage.Error{Code: code, Message: msg})
}

func errUnsupported(what string) error {
	return &storage.Error{Code: storage.CodeGeneric, Message: fmt.Sprintf("%s is not supported", what)}
}

func errSyntax(format string, args ...any) error {
	return &storage.Error{Code: 1064, Message: fmt.Sprintf(format, args...)}
}
