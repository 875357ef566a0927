package sqlengine

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Session is one client session: current database, session variables and
// the current transaction. Statements of a session run one at a time; a new
// Query closes the previous Result if the caller has not.
type Session struct {
	eng  *Engine
	gs   *gmsSession
	user string

	mu   sync.Mutex
	open *Result
}

// Query runs any statement. Errors are *storage.Error.
func (s *Session) Query(ctx context.Context, query string) (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open != nil {
		_ = s.open.closeLocked()
		s.open = nil
	}
	body, err := cleanStatement(query)
	if err != nil {
		return nil, asStorageError(errSyntax("%v", err))
	}
	if body == "" {
		return nil, &storage.Error{Code: 1065, Message: "Query was empty"}
	}
	gctx := s.newContext(ctx, body)
	res, handled, err := dorisStatement(s, gctx, body)
	if handled {
		if err != nil {
			return nil, asStorageError(err)
		}
		return res, nil
	}
	res, handled, err = directRead(s, gctx, body)
	if handled {
		if err != nil {
			return nil, asStorageError(err)
		}
		s.open = res
		return res, nil
	}
	withLiterals, err := rewriteDashComments(body)
	if err == nil {
		withLiterals, err = rewriteCollectionLiterals(withLiterals)
	}
	if err == nil {
		withLiterals, err = rewriteGlobalVars(withLiterals)
	}
	if err != nil {
		return nil, asStorageError(errSyntax("%v", err))
	}
	rewritten, usesDorisRefs, err := rewriteDorisRefsIn(withLiterals, s.gs.GetCurrentDatabase(), s.rewriteEnv())
	if err != nil {
		return nil, asStorageError(err)
	}
	if usesDorisRefs && s.gs.GetCurrentDatabase() == "" {
		// GMS plans table functions only with a current database; the
		// rewritten calls carry their own, so any existing one will do.
		gctx.SetCurrentDatabase("information_schema")
		defer gctx.SetCurrentDatabase("")
	}
	res, err = s.runGMS(gctx, rewritten)
	if err != nil {
		return nil, asStorageError(hiddenColumnError(body, err))
	}
	if res.iter != nil {
		s.open = res
	}
	return res, nil
}

// Detach hands the current result over to the caller, so that a later
// Query no longer closes it: Flight results live on the BE until their
// ticket is fetched, independent of what the FE session runs next. Only
// results read straight from storage can be handed over; a go-mysql-server
// result finishes its statement on the session when it closes, and a GMS
// session runs one statement at a time, so it stays tied to the session.
func (s *Session) Detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open != nil && s.open.iter == nil {
		s.open = nil
	}
}

// Close ends the session, rolling back an open transaction.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open != nil {
		_ = s.open.closeLocked()
		s.open = nil
	}
	if tx, ok := s.gs.GetTransaction().(*txn); ok && tx != nil {
		tx.rollback()
	}
	s.gs.SetTransaction(nil)
	s.gs.closePending()
}

// cleanStatement strips leading comments and a trailing semicolon.
func cleanStatement(q string) (string, error) {
	body, err := storage.StripLeadingComments(q)
	if err != nil {
		return "", err
	}
	body = strings.TrimRight(body, " \t\r\n\f")
	for strings.HasSuffix(body, ";") {
		body = strings.TrimRight(strings.TrimSuffix(body, ";"), " \t\r\n\f")
	}
	return body, nil
}

func (s *Session) newContext(ctx context.Context, query string) *sql.Context {
	gctx := sql.NewContext(ctx, sql.WithSession(s.gs), sql.WithQuery(query), sql.WithMemoryManager(s.eng.gms.MemoryManager))
	// NOW() and friends follow the simulator clock, never running ahead of
	// the current TSO, so a window end taken from NOW() is always accepted.
	gctx.SetQueryTime(time.UnixMilli(s.eng.store.CurrentTSO().PhysicalMs))
	return gctx
}

// runGMS executes a statement through GMS. Statements without a result set
// run to completion here, so their errors (and commit errors) come back from
// Query; SELECTs stream.
func (s *Session) runGMS(gctx *sql.Context, query string) (*Result, error) {
	s.gs.refs.reset()
	schema, iter, _, err := s.eng.gms.QueryWithBindings(gctx, query, nil, nil, nil)
	if err != nil {
		s.abortStatement(gctx)
		return nil, err
	}
	if types.IsOkResultSchema(schema) || len(schema) == 0 {
		return s.drain(gctx, iter)
	}
	res := &Result{Columns: s.resultColumns(schema), iter: iter, ctx: gctx, sess: s}
	// Fetching the first row makes execution errors surface from Query.
	row, err := iter.Next(gctx)
	switch {
	case err == io.EOF:
		res.err = io.EOF
	case err != nil:
		_ = s.finishStatement(gctx, iter, true)
		return nil, err
	default:
		res.peeked, res.hasPk = row, true
	}
	return res, nil
}

func (s *Session) drain(gctx *sql.Context, iter sql.RowIter) (*Result, error) {
	var affected int64
	for {
		row, err := iter.Next(gctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = s.finishStatement(gctx, iter, true)
			return nil, err
		}
		if len(row) == 1 {
			if ok, isOk := row[0].(types.OkResult); isOk {
				affected += int64(ok.RowsAffected)
			}
		}
	}
	if err := s.finishStatement(gctx, iter, false); err != nil {
		return nil, err
	}
	return okResult(affected), nil
}

// finishStatement closes a statement's iterator. GMS commits an autocommit
// transaction in Close; after a failure the transaction is rolled back
// first, so a failed statement leaves nothing behind.
func (s *Session) finishStatement(gctx *sql.Context, iter sql.RowIter, failed bool) error {
	defer s.gs.closePending()
	if failed && !s.explicitTxn(gctx) {
		s.abortStatement(gctx)
	}
	err := iter.Close(gctx)
	if err != nil && !s.explicitTxn(gctx) {
		s.abortStatement(gctx)
	}
	return err
}

func (s *Session) explicitTxn(gctx *sql.Context) bool {
	if gctx.GetIgnoreAutoCommit() {
		return true
	}
	auto, err := plan.IsSessionAutocommit(gctx)
	return err == nil && !auto
}

func (s *Session) abortStatement(gctx *sql.Context) {
	defer s.gs.closePending()
	if s.explicitTxn(gctx) {
		return
	}
	if tx, ok := gctx.GetTransaction().(*txn); ok && tx != nil {
		tx.rollback()
	}
	gctx.SetTransaction(nil)
}

// resultColumns gives each result column its Doris type: the source
// column's type when the column is read from a table (BOOLEAN, LARGEINT and
// complex types survive GMS this way), the closest Doris type otherwise.
func (s *Session) resultColumns(schema sql.Schema) []ResultColumn {
	cols := make([]ResultColumn, len(schema))
	for i, c := range schema {
		t := dorisTypeOf(c.Type)
		if dt, ok := s.gs.refs.lookup(c.Source, c.Name); ok && gmsType(dt).Equals(c.Type) {
			t = dt
		}
		cols[i] = ResultColumn{Name: c.Name, Type: t, Nullable: c.Nullable}
	}
	return cols
}
