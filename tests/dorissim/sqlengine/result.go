package sqlengine

import (
	"io"
	"math/big"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// ResultColumn describes one result column with its Doris type.
type ResultColumn struct {
	Name     string
	Type     storage.Type
	Nullable bool
}

// Result is a streaming statement result. Rows are pulled from GMS one at a
// time; nothing is buffered beyond the row GMS hands out.
type Result struct {
	Columns      []ResultColumn
	AffectedRows int64

	static [][]any // rows of results the simulator answers itself

	rows storage.RowIter // rows read straight from storage (directRead)
	proj []int           // source column of each result column; nil = as is

	iter   sql.RowIter
	ctx    *sql.Context
	sess   *Session
	peeked sql.Row
	hasPk  bool
	err    error
	closed bool

	// mu keeps Next and a close apart: a Flight client may end its session
	// (CloseSession, the FE's session timeout) while a DoGet still reads
	// the session's result on another goroutine.
	mu sync.Mutex
}

func staticResult(cols []ResultColumn, rows [][]any) *Result {
	return &Result{Columns: cols, static: rows}
}

func okResult(affected int64) *Result { return &Result{AffectedRows: affected} }

// Next returns the next row as normalized values, or io.EOF at the end.
func (r *Result) Next() ([]any, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, io.EOF
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.rows != nil {
		return r.nextStored()
	}
	if r.iter == nil {
		if len(r.static) == 0 {
			return nil, io.EOF
		}
		row := r.static[0]
		r.static = r.static[1:]
		return row, nil
	}
	row, err := r.nextGMS()
	if err != nil {
		if err != io.EOF {
			err = asStorageError(err)
		}
		r.err = err
		return nil, err
	}
	return r.normalize(row)
}

func (r *Result) nextStored() ([]any, error) {
	row, err := r.rows.Next()
	if err != nil {
		if err != io.EOF {
			err = asStorageError(err)
		}
		r.err = err
		return nil, err
	}
	if r.proj == nil {
		return row, nil
	}
	out := make([]any, len(r.proj))
	for i, p := range r.proj {
		out[i] = row[p]
	}
	return out, nil
}

func (r *Result) nextGMS() (sql.Row, error) {
	if r.hasPk {
		r.hasPk = false
		row := r.peeked
		r.peeked = nil
		return row, nil
	}
	return r.iter.Next(r.ctx)
}

// normalize converts a GMS row in place of a copy: values that already are
// normalized are kept, and the row is copied only if one must change.
func (r *Result) normalize(row sql.Row) ([]any, error) {
	out := []any(row)
	copied := false
	for i := range r.Columns {
		if i >= len(row) {
			break
		}
		v := row[i]
		nv, err := fromGMS(r.Columns[i].Type, v)
		if err != nil {
			r.err = asStorageError(err)
			return nil, r.err
		}
		if !sameValue(v, nv) {
			if !copied {
				out = append([]any(nil), row...)
				copied = true
			}
			out[i] = nv
		}
	}
	if len(out) > len(r.Columns) {
		out = out[:len(r.Columns)]
	}
	return out, nil
}

// sameValue is a cheap identity check for values fromGMS returned unchanged.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case int8, int16, int32, int64, float32, float64, string, bool, decimal.Decimal, time.Time, *big.Int:
		return a == b
	default:
		_ = x
		return false
	}
}

// Close releases the result; for an autocommit statement it ends the
// statement's transaction (commit on success, rollback after an error).
// A go-mysql-server result finishes its statement on the session, so it
// closes under the session's lock: a Flight ticket may release it while the
// session itself is being closed.
func (r *Result) Close() error {
	if r.sess == nil {
		return r.closeLocked()
	}
	r.sess.mu.Lock()
	defer r.sess.mu.Unlock()
	if r.sess.open == r {
		r.sess.open = nil
	}
	return r.closeLocked()
}

// closeLocked is Close for callers holding the session's lock (or for
// results without a session).
func (r *Result) closeLocked() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.rows != nil {
		return r.rows.Close()
	}
	if r.iter == nil {
		return nil
	}
	failed := r.err != nil && r.err != io.EOF
	err := r.sess.finishStatement(r.ctx, r.iter, failed)
	r.iter = nil
	if err != nil {
		return asStorageError(err)
	}
	return nil
}
