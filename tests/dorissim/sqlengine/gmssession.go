package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// gmsSession is the GMS session of one simulator session. It maps GMS
// transactions onto storage transactions and remembers which Doris columns a
// statement referenced, so result columns keep their Doris types.
type gmsSession struct {
	*sql.BaseSession
	dorisVars map[string]string
	zone      *globalZone // the engine's global time_zone
	refs      columnRefs
	pending   []storage.RowIter // @incr iterators opened while planning
}

var _ sql.TransactionSession = (*gmsSession)(nil)

func (s *gmsSession) StartTransaction(*sql.Context, sql.TransactionCharacteristic) (sql.Transaction, error) {
	return &txn{}, nil
}

func (s *gmsSession) CommitTransaction(_ *sql.Context, tx sql.Transaction) error {
	if t, ok := tx.(*txn); ok {
		return t.commit()
	}
	return nil
}

func (s *gmsSession) Rollback(_ *sql.Context, tx sql.Transaction) error {
	if t, ok := tx.(*txn); ok {
		t.rollback()
	}
	return nil
}

func (s *gmsSession) CreateSavepoint(*sql.Context, sql.Transaction, string) error {
	return errUnsupported("SAVEPOINT")
}

func (s *gmsSession) RollbackToSavepoint(*sql.Context, sql.Transaction, string) error {
	return errUnsupported("ROLLBACK TO SAVEPOINT")
}

func (s *gmsSession) ReleaseSavepoint(*sql.Context, sql.Transaction, string) error {
	return errUnsupported("RELEASE SAVEPOINT")
}

// columnRefs maps "source.column" and "column" (lower case) to Doris types
// for the statement being planned. An ambiguous bare name maps to nothing.
type columnRefs struct {
	qualified map[string]storage.Type
	bare      map[string]*storage.Type
}

func (r *columnRefs) reset() {
	r.qualified = nil
	r.bare = nil
}

func (r *columnRefs) add(source string, cols []storage.Column) {
	if r.qualified == nil {
		r.qualified = map[string]storage.Type{}
		r.bare = map[string]*storage.Type{}
	}
	src := strings.ToLower(source)
	for _, c := range cols {
		name := strings.ToLower(c.Name)
		r.qualified[src+"."+name] = c.Type
		if prev, seen := r.bare[name]; seen {
			if prev != nil && prev.String() != c.Type.String() {
				r.bare[name] = nil
			}
			continue
		}
		t := c.Type
		r.bare[name] = &t
	}
}

func (r *columnRefs) lookup(source, name string) (storage.Type, bool) {
	name = strings.ToLower(name)
	if t, ok := r.qualified[strings.ToLower(source)+"."+name]; ok {
		return t, true
	}
	if t := r.bare[name]; t != nil {
		return *t, true
	}
	return storage.Type{}, false
}

func noteColumns(ctx *sql.Context, source string, cols []storage.Column) {
	if ctx == nil {
		return
	}
	if s, ok := ctx.Session.(*gmsSession); ok {
		s.refs.add(source, cols)
	}
}

func notePending(ctx *sql.Context, it storage.RowIter) {
	if ctx == nil {
		return
	}
	if s, ok := ctx.Session.(*gmsSession); ok {
		s.pending = append(s.pending, it)
	}
}

// closePending closes @incr iterators that planning opened but execution
// never consumed (e.g. the statement failed after planning).
func (s *gmsSession) closePending() {
	for _, it := range s.pending {
		_ = it.Close()
	}
	s.pending = nil
}
