package storage

// Commit applies every staged write atomically under the store lock, with
// one new TSO shared by all binlog records (LSNs follow write order). A
// transaction without writes commits without allocating a TSO and returns
// the current TSO.
func (tx *Txn) Commit() (TSO, error) {
	if tx.done {
		return TSO{}, errorf("transaction %d is already finished", tx.id)
	}
	tx.s.mu.Lock()
	defer tx.s.mu.Unlock()
	return tx.commitLocked()
}

// commitLocked is Commit for callers holding the store write lock.
func (tx *Txn) commitLocked() (TSO, error) {
	if tx.done {
		return TSO{}, errorf("transaction %d is already finished", tx.id)
	}
	defer tx.finishLocked()
	if err := tx.checkTablesLocked(); err != nil {
		return TSO{}, err
	}
	if !tx.hasWrites() {
		return tx.s.CurrentTSO(), nil
	}
	// The TSO and the committed versions move together under the store
	// lock, as Doris takes both under the written tables' write locks
	// (docs/idle-tables.md, fact 3).
	tso := tx.s.oracle.allocate()
	for _, tt := range tx.order {
		commitVersions(tt.t, tt.ops)
	}
	if !tx.s.holdLocked(tso, tx.order) {
		publish(tso, tx.order)
	}
	return tso, nil
}

func (tx *Txn) hasWrites() bool {
	for _, tt := range tx.order {
		if len(tt.ops) > 0 {
			return true
		}
	}
	return false
}

// checkTablesLocked fails the commit, before anything is applied, when a
// written table was dropped, recreated or altered meanwhile.
func (tx *Txn) checkTablesLocked() error {
	for _, tt := range tx.order {
		if len(tt.ops) == 0 {
			continue
		}
		cur, err := tx.s.lookup(tt.db, tt.name)
		if err != nil {
			return err
		}
		if cur != tt.t || cur.schemaVer != tt.schemaVer {
			return errorf("table %s.%s changed during transaction %d", tt.db, tt.name, tx.id)
		}
		if err := checkRoutedLocked(cur, tt.ops); err != nil {
			return err
		}
		if err := checkPartialOps(cur, tt.ops); err != nil {
			return err
		}
	}
	return nil
}

// checkPartialOps rejects a partial update that would create a new key
// while leaving a NOT NULL column without a value. Whether the key exists is
// only known against committed state, hence at commit.
func checkPartialOps(t *table, ops []op) error {
	var exists map[string]bool
	for _, o := range ops {
		if o.cols == nil && exists == nil {
			continue
		}
		if exists == nil {
			exists = map[string]bool{}
		}
		key := t.keyOf(o.row)
		e, seen := exists[key]
		if !seen {
			_, e = t.get(o.row)
		}
		exists[key] = !o.del
		if o.del || o.cols == nil || e {
			continue
		}
		for i, c := range t.def.Columns {
			if !o.cols[i] && o.row[i] == nil && !c.Nullable {
				return errorf("[DATA_QUALITY_ERROR]the unmentioned column `%s` should have default value or be nullable for newly inserted rows in non-strict mode partial update", c.Name)
			}
		}
	}
	return nil
}

// applyOp writes one op into committed state and appends its binlog record
// (doris-facts §8). Callers hold the store write lock.
func applyOp(t *table, tso int64, o op) {
	if t.def.Keys != UniqueKeys {
		applyDupOp(t, tso, o)
		return
	}
	old, exists := t.get(o.row)
	key := t.keyOf(o.row)
	if (exists && staleBySequence(t, o, old)) || (!exists && staleAfterDelete(t, o, key)) {
		return
	}
	if o.del {
		if !exists {
			if !o.keyOnly {
				noteDelete(t, o, nil, key)
			}
			return
		}
		noteDelete(t, o, old, key)
		t.remove(old)
		if t.rowBinlog {
			pre := old
			if !t.needHist {
				pre = keyOnly(t, old)
			}
			appendRecord(t, tso, rawDelete, pre, nil, key)
		}
		return
	}
	row := o.row
	if exists && o.cols != nil {
		row = mergePartial(old, o.row, o.cols)
	}
	delete(t.tombs, key)
	t.put(row)
	if !t.rowBinlog {
		return
	}
	if !exists {
		appendRecord(t, tso, rawInsert, row, nil, key)
		return
	}
	var before []any
	if t.needHist {
		before = old
	}
	appendRecord(t, tso, rawUpdate, row, before, key)
}

func applyDupOp(t *table, tso int64, o op) {
	if o.del {
		t.removeDup(o.row)
		return
	}
	t.put(o.row)
	if t.rowBinlog {
		appendRecord(t, tso, rawInsert, o.row, nil, "")
	}
}

// mergePartial builds a new row from old with the set columns replaced.
func mergePartial(old, upd []any, set []bool) []any {
	out := make([]any, len(old))
	copy(out, old)
	for i, s := range set {
		if s {
			out[i] = upd[i]
		}
	}
	return out
}
