package sqlengine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// txn is the GMS transaction of a session. Its storage transaction is begun
// on the first write only, so read-only statements never consume a TSO.
type txn struct {
	st   *storage.Txn
	done bool
}

var _ sql.Transaction = (*txn)(nil)

func (t *txn) String() string   { return "doris transaction" }
func (t *txn) IsReadOnly() bool { return false }

func (t *txn) storageTxn(store *storage.Store) *storage.Txn {
	if t.st == nil {
		t.st = store.Begin()
	}
	return t.st
}

func (t *txn) commit() error {
	if t.done {
		return nil
	}
	t.done = true
	if t.st == nil {
		return nil
	}
	if _, err := t.st.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (t *txn) rollback() {
	if t.done {
		return
	}
	t.done = true
	if t.st != nil {
		t.st.Rollback()
	}
}

func currentTxn(ctx *sql.Context) *txn {
	if ctx == nil || ctx.Session == nil {
		return nil
	}
	tx, _ := ctx.GetTransaction().(*txn)
	if tx == nil || tx.done {
		return nil
	}
	return tx
}
