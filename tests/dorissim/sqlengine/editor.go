package sqlengine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

type editKind int

const (
	editInsert editKind = iota
	editUpdate
	editDelete
)

type edit struct {
	kind     editKind
	old, new []any
}

// tableEditor buffers one statement's writes and applies them to the
// session's storage transaction when the statement completes, so a scan that
// feeds an UPDATE or DELETE never races with its own writes.
type tableEditor struct {
	store *storage.Store
	db    string
	table string
	cols  []storage.Column
	edits []edit
}

var (
	_ sql.RowInserter = (*tableEditor)(nil)
	_ sql.RowUpdater  = (*tableEditor)(nil)
	_ sql.RowDeleter  = (*tableEditor)(nil)
)

func (e *tableEditor) StatementBegin(*sql.Context) { e.edits = e.edits[:0] }

func (e *tableEditor) DiscardChanges(*sql.Context, error) error {
	e.edits = nil
	return nil
}

func (e *tableEditor) Insert(_ *sql.Context, row sql.Row) error {
	r, err := e.normalize(row)
	if err != nil {
		return err
	}
	e.edits = append(e.edits, edit{kind: editInsert, new: r})
	return nil
}

func (e *tableEditor) Update(_ *sql.Context, old, new sql.Row) error {
	o, err := e.normalize(old)
	if err != nil {
		return err
	}
	n, err := e.normalize(new)
	if err != nil {
		return err
	}
	e.edits = append(e.edits, edit{kind: editUpdate, old: o, new: n})
	return nil
}

func (e *tableEditor) Delete(_ *sql.Context, row sql.Row) error {
	r, err := e.normalize(row)
	if err != nil {
		return err
	}
	e.edits = append(e.edits, edit{kind: editDelete, old: r})
	return nil
}

func (e *tableEditor) StatementComplete(ctx *sql.Context) error {
	if len(e.edits) == 0 {
		return nil
	}
	edits := e.edits
	e.edits = nil
	tx := currentTxn(ctx)
	if tx == nil {
		return fmt.Errorf("write to %s.%s outside a transaction", e.db, e.table)
	}
	st := tx.storageTxn(e.store)
	for _, ed := range edits {
		var err error
		switch ed.kind {
		case editInsert:
			err = st.Insert(e.db, e.table, ed.new)
		case editUpdate:
			err = st.Update(e.db, e.table, ed.old, ed.new)
		case editDelete:
			err = st.Delete(e.db, e.table, ed.old)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *tableEditor) Close(ctx *sql.Context) error { return e.StatementComplete(ctx) }

// normalize converts a GMS row into storage's normalized values.
func (e *tableEditor) normalize(row sql.Row) ([]any, error) {
	if len(row) != len(e.cols) {
		return nil, fmt.Errorf("row for %s.%s has %d values, table has %d columns", e.db, e.table, len(row), len(e.cols))
	}
	out := make([]any, len(row))
	for i, v := range row {
		nv, err := fromGMS(e.cols[i].Type, v)
		if err != nil {
			return nil, fmt.Errorf("column %s of %s.%s: %w", e.cols[i].Name, e.db, e.table, err)
		}
		out[i] = nv
	}
	return out, nil
}
