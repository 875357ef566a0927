package doris

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// PermanentError marks an error that trying again cannot fix: an FE answer
// that every FE repeats, a batch that fails the same way on every attempt,
// binlog rows the input cannot convert, a cache write Doris refuses, a
// Kafka record the broker will never take. It is the one such mark of the
// bundle: every retry loop stops on IsPermanent and retries the rest.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent reports true. A cache of another project, which cannot import
// this package, marks its errors with a method of this name, which
// IsPermanent also honours.
func (e *PermanentError) Permanent() bool { return true }

// Permanent marks err as permanent; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether trying err's operation again cannot fix it:
// an error in its chain says so by a method Permanent() bool, or the
// operating system refused a file for good (no permission, a read-only
// file system, a name too long), as a file cache's writes may be. Only a
// file operation's error counts: a connection refused with EPERM by a
// firewall rule is a network failure, which may pass.
func IsPermanent(err error) bool {
	var p interface{ Permanent() bool }
	if errors.As(err, &p) && p.Permanent() {
		return true
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return false
	}
	return errors.Is(pe.Err, fs.ErrPermission) || errors.Is(pe.Err, syscall.EROFS) || errors.Is(pe.Err, syscall.ENAMETOOLONG)
}

// unmarkPermanent removes the mark at the top of err. A retry loop over
// the FEs uses the mark to stop one call; the caller judges for itself
// whether a later call may succeed (a grant given, a table created), so
// the mark does not leave the loop.
func unmarkPermanent(err error) error {
	if p, ok := err.(*PermanentError); ok {
		return p.Err
	}
	return err
}

// rejectedCodes are the MySQL error numbers of an FE refusing a statement
// itself, which sending it again cannot change: access denied, unknown
// database, table or column, a syntax error, a value too long.
var rejectedCodes = map[uint16]bool{
	1044: true, 1045: true, 1049: true, 1054: true, 1064: true,
	1142: true, 1143: true, 1146: true, 1227: true, 1406: true,
}

// rejectedTexts are how Doris refuses a value under its generic code 1105:
// a string longer than its column or than string_type_length_soft_limit_bytes,
// rows filtered in strict mode.
var rejectedTexts = []string{"too long", "too large", "filtered data", "DATA_QUALITY_ERROR"}

// IsRejectedStatement tells whether err is an FE's MySQL-protocol answer
// refusing the statement itself (rights, schema, the value): the caller
// marks it Permanent, clipped or described as it sees fit.
func IsRejectedStatement(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	if rejectedCodes[me.Number] {
		return true
	}
	return me.Number == 1105 && slices.ContainsFunc(rejectedTexts, func(s string) bool { return strings.Contains(me.Message, s) })
}
