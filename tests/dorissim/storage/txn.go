package storage

import (
	"fmt"
)

// Txn is a write transaction: one per autocommit statement or BEGIN..COMMIT.
// It is used from one goroutine at a time.
type Txn struct {
	s       *Store
	id      int64
	startMs int64
	done    bool
	tables  map[*table]*txnTable
	order   []*txnTable
}

// txnTable is a transaction's staged writes to one table, in write order.
type txnTable struct {
	db, name  string
	t         *table
	schemaVer int64
	ops       []op
}

// op is one staged write. cols marks the columns a partial update sets
// (nil = full row); keyOnly marks a DELETE statement's key-only row, which
// carries no sequence value.
type op struct {
	del     bool
	keyOnly bool
	row     []any
	cols    []bool
}

// Begin starts a transaction; its start time (for @incr visible waits) is
// the current TSO physical time.
func (s *Store) Begin() *Txn {
	s.mu.Lock()
	id := s.nextTxnID
	s.nextTxnID++
	s.mu.Unlock()
	return &Txn{s: s, id: id, startMs: s.CurrentTSO().PhysicalMs, tables: map[*table]*txnTable{}}
}

// ID is the transaction id (reported as TxnId by stream load).
func (tx *Txn) ID() int64 { return tx.id }

// tableFor resolves the table and registers the txn as an open writer of it.
func (tx *Txn) tableFor(db, name string) (*txnTable, []Column, error) {
	if tx.done {
		return nil, nil, errorf("transaction %d is already finished", tx.id)
	}
	tx.s.mu.Lock()
	defer tx.s.mu.Unlock()
	t, err := tx.s.lookup(db, name)
	if err != nil {
		return nil, nil, err
	}
	tt, ok := tx.tables[t]
	if !ok {
		tt = &txnTable{db: db, name: name, t: t, schemaVer: t.schemaVer}
		tx.tables[t] = tt
		tx.order = append(tx.order, tt)
		t.open[tx] = tx.startMs
	}
	if tt.schemaVer != t.schemaVer {
		return nil, nil, errorf("table %s.%s schema changed during transaction %d", db, name, tx.id)
	}
	return tt, t.def.Columns, nil
}

// Insert writes a row; on a UNIQUE table it upserts by key.
func (tx *Txn) Insert(db, table string, row []any) error {
	tt, cols, err := tx.tableFor(db, table)
	if err != nil {
		return err
	}
	norm, err := CoerceRow(cols, row)
	if err != nil {
		return fmt.Errorf("insert into %s.%s: %w", db, table, asError(err))
	}
	if !tx.s.routeRow(tt.t, norm) {
		return errNoPartition(cols, norm)
	}
	tt.ops = append(tt.ops, op{row: norm})
	return nil
}

// Update replaces old with new. Only UNIQUE tables can be updated; changing
// the key becomes a delete of the old key plus an insert of the new one.
func (tx *Txn) Update(db, table string, old, new []any) error {
	tt, cols, err := tx.tableFor(db, table)
	if err != nil {
		return err
	}
	if tt.t.def.Keys != UniqueKeys {
		return errorf("Only unique table could be updated.")
	}
	oldN, err := CoerceRow(cols, old)
	if err != nil {
		return fmt.Errorf("update %s.%s: %w", db, table, asError(err))
	}
	newN, err := CoerceRow(cols, new)
	if err != nil {
		return fmt.Errorf("update %s.%s: %w", db, table, asError(err))
	}
	if !tx.s.routeRow(tt.t, newN) {
		return errNoPartition(cols, newN)
	}
	if tt.t.keyOf(oldN) != tt.t.keyOf(newN) {
		tt.ops = append(tt.ops, op{del: true, row: oldN})
	}
	tt.ops = append(tt.ops, op{row: newN})
	return nil
}

// Delete removes a row: by key on UNIQUE tables; on DUP tables every equal
// row, unless row binlog is on, which Doris rejects.
func (tx *Txn) Delete(db, table string, row []any) error {
	tt, cols, err := tx.tableFor(db, table)
	if err != nil {
		return err
	}
	if tt.t.def.Keys != UniqueKeys && tt.t.rowBinlog {
		return errorf("DELETE with predicates is not supported when binlog<row> is enabled")
	}
	norm, err := coerceForDelete(tt.t, cols, row)
	if err != nil {
		return fmt.Errorf("delete from %s.%s: %w", db, table, asError(err))
	}
	tt.ops = append(tt.ops, op{del: true, keyOnly: tt.t.def.Keys == UniqueKeys, row: norm})
	return nil
}

// coerceForDelete needs only the key columns on UNIQUE tables.
func coerceForDelete(t *table, cols []Column, row []any) ([]any, error) {
	if len(row) != len(cols) {
		return nil, fmt.Errorf("row has %d values but the table has %d columns", len(row), len(cols))
	}
	if t.def.Keys != UniqueKeys {
		return CoerceRow(cols, row)
	}
	out := make([]any, len(row))
	for _, i := range t.keyIdx {
		v, err := Coerce(cols[i].Type, row[i])
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cols[i].Name, err)
		}
		out[i] = v
	}
	return out, nil
}

// asError wraps plain errors as generic Doris errors so callers always get
// an *Error at the top.
func asError(err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Code: CodeGeneric, Message: err.Error()}
}

// Rollback discards the staged writes.
func (tx *Txn) Rollback() {
	if tx.done {
		return
	}
	tx.s.mu.Lock()
	defer tx.s.mu.Unlock()
	tx.finishLocked()
}

// finishLocked unregisters the txn from its tables; callers hold s.mu.
func (tx *Txn) finishLocked() {
	tx.done = true
	for _, tt := range tx.order {
		delete(tt.t.open, tx)
	}
	if len(tx.order) > 0 {
		tx.s.signalTxnEnded()
	}
}
